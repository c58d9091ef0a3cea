// Turns a form body or query into refund parameters the way Stripe validates them, with
// Stripe-shaped errors that name the offending param.
import { z } from "zod";
import { REFUND_REASONS, type RefundReason, type StripeErrorBody } from "./payments-schemas";

export type ApiError = { status: number; body: StripeErrorBody };
export type Parsed<T> = { ok: true; value: T } | { ok: false; error: ApiError };

export type CreateRefundParams = {
  payment_intent: string;
  amount: number;
  reason: RefundReason | null;
  metadata: Record<string, string>;
};

export type ListRefundsQuery = { payment_intent?: string; limit: number };

export function invalidRequest(message: string, param?: string, status = 400): ApiError {
  return { status, body: { error: { type: "invalid_request_error", message, param } } };
}

// Stripe sends integers as strings in forms; keep its wording so clients see familiar errors.
const integer = (param: string, min: number, max: number) =>
  z
    .string({ error: `Missing required param: ${param}.` })
    .regex(/^-?\d+$/, { error: (issue) => `Invalid integer: ${String(issue.input)}` })
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, `This value must be greater than or equal to ${min}.`)
        .max(max, `This value must be less than or equal to ${max}.`),
    );

const createSchema = z.strictObject({
  payment_intent: z.string({ error: "Missing required param: payment_intent." }),
  // USD's ceiling on Stripe: $999,999.99 in cents.
  amount: integer("amount", 1, 99_999_999),
  reason: z
    .enum(REFUND_REASONS, {
      error: `Invalid reason: must be one of ${REFUND_REASONS.join(", ")}`,
    })
    .optional(),
  metadata: z
    .record(
      z.string().max(40, "Metadata keys can have up to 40 characters."),
      z.string().max(500, "Metadata values can have up to 500 characters."),
    )
    .refine((m) => Object.keys(m).length <= 50, "Metadata can have up to 50 keys."),
});

const listSchema = z.strictObject({
  payment_intent: z.string().optional(),
  limit: integer("limit", 1, 100).optional(),
});

const METADATA_PARAM = /^metadata\[(.+)\]$/;

/** Flat form entries → the nested shape Stripe means by `metadata[key]=value`. */
function nest(form: Record<string, string>): Record<string, unknown> {
  const metadata: Record<string, string> = {};
  const nested: Record<string, unknown> = { metadata };
  for (const [key, value] of Object.entries(form)) {
    const match = METADATA_PARAM.exec(key);
    if (match?.[1] !== undefined) metadata[match[1]] = value;
    else nested[key] = value;
  }
  return nested;
}

function toApiError(error: z.ZodError): ApiError {
  // Like Stripe, an unknown parameter is reported before anything wrong with the known ones.
  const issue = error.issues.find((i) => i.code === "unrecognized_keys") ?? error.issues[0];
  if (issue === undefined) return invalidRequest("Invalid request.");
  if (issue.code === "unrecognized_keys") {
    const unknown = issue.keys[0] ?? "";
    return invalidRequest(`Received unknown parameter: ${unknown}`, unknown);
  }
  const [head, ...rest] = issue.path.map(String);
  const param = head === undefined ? undefined : rest.reduce((p, part) => `${p}[${part}]`, head);
  // A bad metadata key arrives wrapped; its own message is the one that says what is wrong.
  const message =
    issue.code === "invalid_key" ? (issue.issues[0]?.message ?? issue.message) : issue.message;
  return invalidRequest(message, param);
}

export function parseCreateRefund(form: Record<string, string>): Parsed<CreateRefundParams> {
  const result = createSchema.safeParse(nest(form));
  if (!result.success) return { ok: false, error: toApiError(result.error) };
  const { payment_intent, amount, reason, metadata } = result.data;
  // The demo keeps no payment intents; anything shaped like one exists, as in a test account
  // that has them all.
  if (!/^pi_[A-Za-z0-9_]+$/.test(payment_intent)) {
    const error = invalidRequest(`No such payment_intent: '${payment_intent}'`, "payment_intent");
    return {
      ok: false,
      error: { status: 404, body: { error: { ...error.body.error, code: "resource_missing" } } },
    };
  }
  return { ok: true, value: { payment_intent, amount, reason: reason ?? null, metadata } };
}

export function parseListRefunds(query: Record<string, string>): Parsed<ListRefundsQuery> {
  const result = listSchema.safeParse(query);
  if (!result.success) return { ok: false, error: toApiError(result.error) };
  // Stripe's default page size.
  return { ok: true, value: { ...result.data, limit: result.data.limit ?? 10 } };
}
