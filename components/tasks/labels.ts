// Words and colours for what the task screen shows beyond the shared states: effects read with
// their lease, replay outcomes, approval decisions, and ledger entry kinds.

import type { ReplayEffect } from "../../lib/domain/replay-plan";
import type { EffectState } from "../../lib/server/queries/get-task-detail";
import type { StatTone } from "../ui/stat";

export const EFFECT_STATE_LABEL: Record<EffectState, string> = {
  succeeded: "Succeeded",
  failed: "Failed",
  in_flight: "In flight",
  outcome_unknown: "Outcome unknown",
};

export const EFFECT_STATE_TONE: Record<EffectState, StatTone> = {
  succeeded: "good",
  failed: "bad",
  in_flight: "info",
  outcome_unknown: "warn",
};

export const EFFECT_STATE_HINT: Record<EffectState, string> = {
  succeeded: "Done once; the same key returns this result instead of acting again.",
  failed: "The provider did not act; the same key may act again.",
  in_flight: "A worker holds this key right now.",
  outcome_unknown:
    "Started, but its lease ran out without a result: it may or may not have happened.",
};

export const REPLAY_OUTCOME_LABEL: Record<ReplayEffect["outcome"], string> = {
  dedupe: "Deduplicated",
  act: "Acts",
  outcome_unknown: "Outcome unknown",
  in_flight: "In flight",
};

export const REPLAY_OUTCOME_TONE: Record<ReplayEffect["outcome"], StatTone> = {
  dedupe: "good",
  act: "warn",
  outcome_unknown: "bad",
  in_flight: "info",
};

export const REPLAY_OUTCOME_HINT: Record<ReplayEffect["outcome"], string> = {
  dedupe: "Returns the stored result; the provider is not called again.",
  act: "The last try did not act, so the same key acts now.",
  outcome_unknown:
    "Reconciled with the provider, resent where the provider honours the key, otherwise a person decides.",
  in_flight: "Another worker holds it; the replay waits for its result.",
};

export const APPROVAL_STATUS_LABEL = {
  pending: "Pending",
  approved: "Approved",
  rejected: "Rejected",
} as const;

export const APPROVAL_STATUS_TONE: Record<keyof typeof APPROVAL_STATUS_LABEL, StatTone> = {
  pending: "warn",
  approved: "good",
  rejected: "neutral",
};

const KIND_TONE: Record<string, StatTone> = {
  "task.succeeded": "good",
  "effect.succeeded": "good",
  "effect.deduplicated": "good",
  "task.dead_lettered": "bad",
  "attempt.failed": "bad",
  "effect.failed": "bad",
  "effect.payload_mismatch": "bad",
  "effect.outcome_unknown": "warn",
  "effect.rate_limited": "warn",
  "approval.requested": "warn",
  "retry.scheduled": "warn",
};

/** Review decisions stand out from the machine's own entries. */
export function ledgerKindTone(kind: string): StatTone {
  if (kind.startsWith("review.") || kind.startsWith("replay.") || kind === "outcome.resolved")
    return "info";
  return KIND_TONE[kind] ?? "neutral";
}
