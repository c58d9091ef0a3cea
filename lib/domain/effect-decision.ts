// What to do when an effect's key was claimed before (by an earlier attempt, a replay or another
// worker): the design's table (DESIGN.md, "Effect") as one pure function. The runtime reads the
// effect's row under lock, asks this, and writes what it says (effect-claim.ts).

export type ExistingEffect = {
  fingerprint: string;
  status: "started" | "succeeded" | "failed";
  /** A `started` effect whose lease has not run out: another worker is on it. */
  leaseLive: boolean;
  /** How long ago the key was first claimed. */
  ageMs: number;
};

/** The tool's declarations that bear on it. */
export type EffectTool = {
  onPayloadMismatch?: "return-first" | "dead-letter";
  hasReconcile: boolean;
  providerIdempotent: boolean;
  dedupWindowMs?: number;
};

export type UnknownOutcomeAction = "reconcile" | "resend" | "dead-letter";

export type ExistingEffectDecision = {
  /**
   * The key was performed with a different payload (fingerprint): recorded either way, with
   * both payloads; `dead-letter` ends the task, `return-first` goes on as below.
   */
  mismatch: null | "dead-letter" | "return-first";
  next:
    | { do: "dead-letter"; reason: "payload_mismatch" }
    /** It happened: return the stored result (effect.deduplicated). */
    | { do: "deduplicate" }
    /** The provider said it did not act: the same key may act now. */
    | { do: "act-again" }
    /** In flight on another worker: wait, acting on nothing. */
    | { do: "wait" }
    /**
     * Started and its lease ran out without a result: ask the provider (reconcile), resend with
     * the same key (the provider honours it and still remembers it), or a human decides.
     */
    | { do: "outcome-unknown"; action: UnknownOutcomeAction; pastDedupWindow: boolean };
};

export function decideExistingEffect(
  existing: ExistingEffect,
  fingerprint: string,
  tool: EffectTool,
): ExistingEffectDecision {
  const mismatch =
    existing.fingerprint === fingerprint ? null : (tool.onPayloadMismatch ?? "dead-letter");
  if (mismatch === "dead-letter") {
    return { mismatch, next: { do: "dead-letter", reason: "payload_mismatch" } };
  }
  if (existing.status === "succeeded") return { mismatch, next: { do: "deduplicate" } };
  if (existing.status === "failed") return { mismatch, next: { do: "act-again" } };
  if (existing.leaseLive) return { mismatch, next: { do: "wait" } };
  // A key older than the provider's memory of it is never resent on that memory alone.
  const pastDedupWindow = tool.dedupWindowMs !== undefined && existing.ageMs >= tool.dedupWindowMs;
  const action: UnknownOutcomeAction = tool.hasReconcile
    ? "reconcile"
    : tool.providerIdempotent && !pastDedupWindow
      ? "resend"
      : "dead-letter";
  return { mismatch, next: { do: "outcome-unknown", action, pastDedupWindow } };
}
