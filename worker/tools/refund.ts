// refund through a Stripe-compatible payments API. The effect key travels as the
// Idempotency-Key header and as metadata[intent_key], so a resend within the provider's 24 h
// key retention is safe and an unknown outcome is reconciled by listing the payment's refunds.
import { z } from "zod";
import { defineTool } from "../../lib/sdk/define";
import { EffectNotPerformedError, rateLimitedFrom } from "../../lib/sdk/errors";

export type RefundConfig = {
  paymentsUrl: string;
  apiKey: string;
  approvalThresholdCents: number;
  /** At most this many refunds a second across all workers (PAYMENTS_RATE_LIMIT_PER_SECOND). */
  ratePerSecond?: number;
};

const refundSchema = z.object({
  id: z.string(),
  amount: z.number(),
  status: z.string(),
  payment_intent: z.string(),
  metadata: z.record(z.string(), z.string()),
});
const listSchema = z.object({ data: z.array(refundSchema) });
const errorSchema = z.object({ error: z.object({ type: z.string(), message: z.string() }) });

const STRIPE_REASONS = {
  duplicate: "duplicate",
  fraudulent: "fraudulent",
  customer: "requested_by_customer",
} as const;

export function refundTool(config: RefundConfig) {
  const headers = { Authorization: `Bearer ${config.apiKey}` };
  return defineTool({
    name: "refund",
    description: "Refund part or all of an order's payment.",
    input: z.object({
      orderId: z.string().min(1),
      paymentIntent: z.string().regex(/^pi_[A-Za-z0-9_]+$/),
      amountCents: z.number().int().positive(),
      currency: z.string().regex(/^[a-z]{3}$/),
      reason: z.enum(["duplicate", "fraudulent", "customer"]),
    }),
    intent: (a) => ({ orderId: a.orderId, paymentIntent: a.paymentIntent }),
    providerIdempotent: true,
    dedupWindowMs: 24 * 60 * 60 * 1000,
    money: { amount: "amountCents", currency: "currency" },
    requiresApproval: (a) => a.amountCents > config.approvalThresholdCents,
    ...(config.ratePerSecond === undefined
      ? {}
      : { rateLimit: { limit: config.ratePerSecond, periodMs: 1_000 } }),
    execute: async (a, { idempotencyKey, signal, traceHeaders }) => {
      const body = new URLSearchParams({
        payment_intent: a.paymentIntent,
        amount: String(a.amountCents),
        reason: STRIPE_REASONS[a.reason],
        "metadata[intent_key]": idempotencyKey,
        "metadata[order_id]": a.orderId,
      });
      let res: Response;
      try {
        res = await fetch(`${config.paymentsUrl}/v1/refunds`, {
          method: "POST",
          headers: {
            ...headers,
            // The payments service's span joins this tool call's trace (docs/tracing.md).
            ...traceHeaders?.(),
            "Idempotency-Key": idempotencyKey,
            "Content-Type": "application/x-www-form-urlencoded",
          },
          body,
          signal,
        });
      } catch (err) {
        const code = (err as { cause?: { code?: string } }).cause?.code;
        if (code === "ECONNREFUSED")
          throw new EffectNotPerformedError("payments API unreachable", { cause: err });
        throw err;
      }
      // The provider's rate limit: it did not act; the runtime waits for Retry-After.
      if (res.status === 429) throw rateLimitedFrom(res);
      const json: unknown = await res.json().catch(() => null);
      if (res.ok) {
        const refund = refundSchema.parse(json);
        return { refundId: refund.id, status: refund.status, amountCents: refund.amount };
      }
      const message = errorSchema.safeParse(json).data?.error.message ?? `HTTP ${res.status}`;
      // 409: the same key is in flight elsewhere; we cannot know yet, so the outcome is unknown.
      if (res.status === 409 || res.status >= 500) {
        if (res.status === 502 || res.status === 503) {
          throw new EffectNotPerformedError(`payments gateway ${res.status}: ${message}`);
        }
        throw new Error(`payments API ${res.status}: ${message}`);
      }
      throw new EffectNotPerformedError(`payments API refused (${res.status}): ${message}`, {
        retryable: false,
      });
    },
    reconcile: async (key, a, { signal, traceHeaders }) => {
      const url = `${config.paymentsUrl}/v1/refunds?payment_intent=${encodeURIComponent(a.paymentIntent)}&limit=100`;
      const res = await fetch(url, { headers: { ...headers, ...traceHeaders?.() }, signal });
      if (!res.ok) throw new Error(`reconcile: payments API ${res.status}`);
      const found = listSchema
        .parse(await res.json())
        .data.find((r) => r.metadata.intent_key === key);
      return found
        ? {
            happened: true,
            result: { refundId: found.id, status: found.status, amountCents: found.amount },
          }
        : { happened: false };
    },
  });
}
