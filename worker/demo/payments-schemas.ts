// The demo payments service's contract: the Stripe objects it answers with, the requests it
// records and the faults it injects. Other processes (the crash harness) parse its control
// API with these schemas.
import { z } from "zod";

export const REFUND_REASONS = ["duplicate", "fraudulent", "requested_by_customer"] as const;
export type RefundReason = (typeof REFUND_REASONS)[number];

export const refundSchema = z.object({
  id: z.string(),
  object: z.literal("refund"),
  amount: z.number().int(),
  currency: z.literal("usd"),
  payment_intent: z.string(),
  reason: z.enum(REFUND_REASONS).nullable(),
  status: z.literal("succeeded"),
  metadata: z.record(z.string(), z.string()),
  created: z.number().int(),
});
export type Refund = z.infer<typeof refundSchema>;

export const refundListSchema = z.object({
  object: z.literal("list"),
  data: z.array(refundSchema),
  has_more: z.boolean(),
  url: z.string(),
});
export type RefundList = z.infer<typeof refundListSchema>;

export const stripeErrorSchema = z.object({
  error: z.object({
    type: z.string(),
    message: z.string(),
    param: z.string().optional(),
    code: z.string().optional(),
  }),
});
export type StripeErrorBody = z.infer<typeof stripeErrorSchema>;

const rate = z.number().min(0).max(1);
const millis = z.number().int().min(0).max(600_000);

/**
 * An outage scoped to some payments: a refund whose payment_intent starts with the prefix is
 * answered with this error before it reaches the API (nothing happens, the key stays unused),
 * every time, whatever the rates say. `agent-ledger demo outage` stages its outage with these,
 * so the rest of the demo keeps working meanwhile.
 */
export const paymentsOutageSchema = z.strictObject({
  paymentIntentPrefix: z
    .string()
    .regex(/^pi_[A-Za-z0-9_]+$/, "must start with pi_ followed by letters, digits or _"),
  status: z.number().int().min(400).max(599),
  /** Stripe's error type; api_error when absent. */
  type: z.string().min(1).max(100).optional(),
  message: z.string().min(1).max(500),
});
export type PaymentsOutage = z.infer<typeof paymentsOutageSchema>;

export const paymentsFaultsSchema = z
  .strictObject({
    /** Makes the fault sequence repeatable; setting faults restarts it. */
    seed: z.number().int().optional(),
    /** Answer 502 before the request reaches the API: nothing happens, the key stays unused. */
    status502Rate: rate.optional(),
    /** Hold the request for timeoutMs, then drop the connection without an answer. */
    timeoutRate: rate.optional(),
    timeoutMs: millis.optional(),
    /** Whether a timed-out request was processed (refund created, key stored) first. */
    actBeforeTimeout: z.boolean().optional(),
    /** Process the request (refund created, key stored), then drop the connection. */
    dropAfterActRate: rate.optional(),
    /** Wait this long before answering; a new idempotency key stays in flight meanwhile. */
    delayMs: millis.optional(),
    /**
     * Answer 429 with Retry-After to any API request past this many in the last second (those
     * refused do not count): nothing happens, the key stays unused.
     */
    rateLimitPerSecond: z.number().int().min(1).max(10_000).optional(),
    /** Scoped outages, the first whose prefix matches answering; see paymentsOutageSchema. */
    outages: z.array(paymentsOutageSchema).max(100).optional(),
  })
  .refine((f) => (f.status502Rate ?? 0) + (f.timeoutRate ?? 0) + (f.dropAfterActRate ?? 0) <= 1, {
    message: "status502Rate + timeoutRate + dropAfterActRate must not exceed 1",
  });
export type PaymentsFaults = z.infer<typeof paymentsFaultsSchema>;

export const paymentsFaultKinds = [
  "status502",
  "timeout",
  "dropAfterAct",
  "outage",
  "rateLimited",
] as const;
export type PaymentsFaultKind = (typeof paymentsFaultKinds)[number];

export const recordedRequestSchema = z.object({
  /** Order of arrival, from 1. */
  seq: z.number().int(),
  at: z.iso.datetime(),
  method: z.string(),
  path: z.string(),
  idempotencyKey: z.string().nullable(),
  /** The form body of a POST, the query of a GET, as received. */
  params: z.record(z.string(), z.string()),
  fault: z.enum(paymentsFaultKinds).nullable(),
  /**
   * answered: the client got `status`; dropped: we cut the connection on purpose (`status` is
   * what it would have got); client_gone: the client left before the answer; pending: not yet.
   */
  outcome: z.enum(["pending", "answered", "dropped", "client_gone"]),
  status: z.number().int().nullable(),
  replayed: z.boolean(),
  /** The refund this request created or replayed. */
  refundId: z.string().nullable(),
  /** True only for the request whose processing created the refund: the effect happened. */
  createdRefund: z.boolean(),
});
export type RecordedRequest = z.infer<typeof recordedRequestSchema>;
