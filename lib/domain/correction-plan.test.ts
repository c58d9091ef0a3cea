import { describe, expect, it } from "vitest";
import { type CorrectionEffectInput, planCorrection } from "./correction-plan";
import { deriveEffectKey } from "./hash";

const TASK = "6f1c1d4e-8a43-4d6b-9e83-1f2b3c4d5e6f";

describe("planCorrection", () => {
  const before = { orderId: "ord_1", paymentIntent: "pi_1", currency: "US dollars", to: "a@x.io" };
  const effects: CorrectionEffectInput[] = [
    {
      step: 2,
      tool: "refund",
      key: deriveEffectKey(TASK, "refund", { orderId: "ord_1", paymentIntent: "pi_1" }),
      status: "succeeded",
      intent: { orderId: "ord_1", paymentIntent: "pi_1" },
    },
    {
      step: 3,
      tool: "send_email",
      key: deriveEffectKey(TASK, "send_email", { to: "a@x.io", invoiceId: "ord_1" }),
      status: "succeeded",
      intent: { to: "a@x.io", invoiceId: "ord_1" },
    },
  ];

  it("an intent holding none of the changed values keeps its key and deduplicates", () => {
    const plan = planCorrection(TASK, before, { ...before, currency: "usd" }, effects);
    expect(plan.changes).toEqual([
      { path: "currency", change: "changed", before: '"US dollars"', after: '"usd"' },
    ]);
    expect(plan.effects.map((e) => [e.tool, e.keyChanges, e.outcome, e.newKey === e.key])).toEqual([
      ["refund", false, "dedupe", true],
      ["send_email", false, "dedupe", true],
    ]);
  });

  it("an intent holding a changed value gets the key of the swapped intent and acts", () => {
    const plan = planCorrection(TASK, before, { ...before, to: "b@x.io" }, effects);
    const email = plan.effects[1];
    expect(email).toMatchObject({ keyChanges: true, because: ["to"], outcome: "act" });
    expect(email?.newKey).toBe(
      deriveEffectKey(TASK, "send_email", { to: "b@x.io", invoiceId: "ord_1" }),
    );
    expect(plan.effects[0]).toMatchObject({ keyChanges: false, outcome: "dedupe" });
  });

  it("a value used under another name in the intent is followed too", () => {
    const plan = planCorrection(TASK, before, { ...before, orderId: "ord_9" }, effects);
    expect(plan.effects.map((e) => e.because)).toEqual([["orderId"], ["invoiceId"]]);
    expect(plan.effects.every((e) => e.outcome === "act")).toBe(true);
  });

  it("an effect that did not succeed acts whatever its key; a hidden intent keeps its key", () => {
    const [refund, email] = effects;
    if (!refund || !email) throw new Error("fixture");
    const plan = planCorrection(TASK, before, { ...before, to: "b@x.io" }, [
      { ...refund, status: "failed" },
      { ...email, intent: null },
    ]);
    expect(plan.effects.map((e) => [e.keyChanges, e.outcome])).toEqual([
      [false, "act"],
      [false, "dedupe"],
    ]);
  });
});
