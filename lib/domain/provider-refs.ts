// The identifiers a reviewer looks up at the provider to learn whether an effect happened: the
// full effect key, and where each example integration carries it (DESIGN: every email's
// Message-ID is <key@domain> with the key in X-Agent-Ledger-Key; a refund sends it as
// Idempotency-Key and metadata[intent_key] on its payment intent). Pure.
import type { JsonValue } from "./json";

export type ProviderRef = { label: string; value: string };

const field = (args: JsonValue, name: string): string | null => {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return null;
  const v = args[name];
  return typeof v === "string" ? v : null;
};

export function providerRefs(
  tool: string,
  key: string,
  args: JsonValue,
  mailDomain: string,
): ProviderRef[] {
  const refs: ProviderRef[] = [{ label: "Effect key", value: key }];
  if (tool === "send_email") {
    refs.push({ label: "Message-ID", value: `<${key}@${mailDomain}>` });
    refs.push({ label: "X-Agent-Ledger-Key", value: key });
    const to = field(args, "to");
    if (to) refs.push({ label: "Recipient", value: to });
  } else if (tool === "refund") {
    refs.push({ label: "Idempotency-Key / metadata[intent_key]", value: key });
    const pi = field(args, "paymentIntent");
    if (pi) refs.push({ label: "payment_intent", value: pi });
    const order = field(args, "orderId");
    if (order) refs.push({ label: "metadata[order_id]", value: order });
  }
  return refs;
}
