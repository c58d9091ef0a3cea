// Shared by the demo receivers' tests: a bare Stripe-style client over fetch, so the tests
// speak to the payments service exactly as an outside process would.
import { DEFAULT_PAYMENTS_API_KEY } from "./payments-service";

export type ApiReply = { status: number; headers: Headers; body: unknown };

export async function postRefund(
  baseUrl: string,
  form: Record<string, string>,
  opts: { key?: string; apiKey?: string | null; signal?: AbortSignal } = {},
): Promise<ApiReply> {
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
  };
  const apiKey = opts.apiKey === undefined ? DEFAULT_PAYMENTS_API_KEY : opts.apiKey;
  if (apiKey !== null) headers.authorization = `Bearer ${apiKey}`;
  if (opts.key !== undefined) headers["idempotency-key"] = opts.key;
  const res = await fetch(`${baseUrl}/v1/refunds`, {
    method: "POST",
    headers,
    body: new URLSearchParams(form).toString(),
    signal: opts.signal,
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

export async function listRefundsFor(
  baseUrl: string,
  paymentIntent: string,
  apiKey = DEFAULT_PAYMENTS_API_KEY,
): Promise<ApiReply> {
  const query = new URLSearchParams({ payment_intent: paymentIntent, limit: "100" });
  const res = await fetch(`${baseUrl}/v1/refunds?${query}`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

export function refundForm(intentKey: string, overrides: Record<string, string> = {}) {
  return {
    payment_intent: "pi_demo_1",
    amount: "1250",
    reason: "requested_by_customer",
    "metadata[intent_key]": intentKey,
    "metadata[order_id]": "ord_42",
    ...overrides,
  };
}
