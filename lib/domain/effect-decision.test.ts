import { describe, expect, it } from "vitest";
import { decideExistingEffect, type EffectTool, type ExistingEffect } from "./effect-decision";

const plain: EffectTool = { hasReconcile: false, providerIdempotent: false };
const effect = (over: Partial<ExistingEffect> = {}): ExistingEffect => ({
  fingerprint: "f1",
  status: "started",
  leaseLive: false,
  ageMs: 1_000,
  ...over,
});

describe("decideExistingEffect", () => {
  it("returns the stored result of an effect that succeeded", () => {
    expect(decideExistingEffect(effect({ status: "succeeded" }), "f1", plain)).toEqual({
      mismatch: null,
      next: { do: "deduplicate" },
    });
  });

  it("lets the same key act again when the provider said it did not act", () => {
    expect(decideExistingEffect(effect({ status: "failed" }), "f1", plain).next).toEqual({
      do: "act-again",
    });
  });

  it("waits, acting on nothing, while another worker's lease is live", () => {
    expect(decideExistingEffect(effect({ leaseLive: true }), "f1", plain).next).toEqual({
      do: "wait",
    });
  });

  it("sends an outcome unknown to a human unless the tool can reconcile or resend", () => {
    expect(decideExistingEffect(effect(), "f1", plain).next).toEqual({
      do: "outcome-unknown",
      action: "dead-letter",
      pastDedupWindow: false,
    });
    expect(
      decideExistingEffect(effect(), "f1", {
        ...plain,
        hasReconcile: true,
        providerIdempotent: true,
      }).next,
    ).toMatchObject({ action: "reconcile" });
    expect(
      decideExistingEffect(effect(), "f1", { ...plain, providerIdempotent: true }).next,
    ).toMatchObject({
      action: "resend",
    });
  });

  it("never resends past the provider's dedup window on its memory alone", () => {
    const tool = { ...plain, providerIdempotent: true, dedupWindowMs: 60_000 };
    expect(decideExistingEffect(effect({ ageMs: 59_999 }), "f1", tool).next).toMatchObject({
      action: "resend",
      pastDedupWindow: false,
    });
    expect(decideExistingEffect(effect({ ageMs: 60_000 }), "f1", tool).next).toEqual({
      do: "outcome-unknown",
      action: "dead-letter",
      pastDedupWindow: true,
    });
    expect(
      decideExistingEffect(effect({ ageMs: 60_000 }), "f1", { ...tool, hasReconcile: true }).next,
    ).toMatchObject({ action: "reconcile", pastDedupWindow: true });
  });

  it("dead-letters a payload mismatch by default, whatever the status", () => {
    for (const status of ["started", "succeeded", "failed"] as const) {
      expect(decideExistingEffect(effect({ status }), "f2", plain)).toEqual({
        mismatch: "dead-letter",
        next: { do: "dead-letter", reason: "payload_mismatch" },
      });
    }
  });

  it("with return-first, records the mismatch and goes on as for the same payload", () => {
    const tool = { ...plain, onPayloadMismatch: "return-first" as const };
    expect(decideExistingEffect(effect({ status: "succeeded" }), "f2", tool)).toEqual({
      mismatch: "return-first",
      next: { do: "deduplicate" },
    });
    expect(decideExistingEffect(effect({ leaseLive: true }), "f2", tool)).toEqual({
      mismatch: "return-first",
      next: { do: "wait" },
    });
  });
});
