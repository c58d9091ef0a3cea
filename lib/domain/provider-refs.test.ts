import { describe, expect, it } from "vitest";
import { providerRefs } from "./provider-refs";

const KEY = "a".repeat(64);

describe("providerRefs", () => {
  it("an email: the full key, its Message-ID on the sender's domain, the header and recipient", () => {
    expect(providerRefs("send_email", KEY, { to: "c@example.com" }, "acme.test")).toEqual([
      { label: "Effect key", value: KEY },
      { label: "Message-ID", value: `<${KEY}@acme.test>` },
      { label: "X-Agent-Ledger-Key", value: KEY },
      { label: "Recipient", value: "c@example.com" },
    ]);
  });

  it("a refund: the key as Idempotency-Key and the payment intent to list refunds of", () => {
    expect(
      providerRefs("refund", KEY, { paymentIntent: "pi_1", orderId: "ord_1" }, "x").map(
        (r) => r.label,
      ),
    ).toEqual([
      "Effect key",
      "Idempotency-Key / metadata[intent_key]",
      "payment_intent",
      "metadata[order_id]",
    ]);
  });

  it("another tool, or hidden arguments: the key alone", () => {
    expect(providerRefs("webhook", KEY, "[hidden]", "x")).toEqual([
      { label: "Effect key", value: KEY },
    ]);
    expect(providerRefs("refund", KEY, "[hidden]", "x")).toHaveLength(2);
  });
});
