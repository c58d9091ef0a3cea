// Words and colours for the domain's states, shared by every screen that shows them.
import type { BulkAction } from "../../lib/domain/bulk-actions";
import type { DeadReason, EffectStatus, TaskStatus } from "../../lib/domain/task-states";
import type { StatTone } from "./stat";

export const TASK_STATUS_LABEL: Record<TaskStatus, string> = {
  queued: "Queued",
  running: "Running",
  retry_wait: "Waiting to retry",
  awaiting_approval: "Awaiting approval",
  waiting: "Waiting",
  dead: "Dead",
  succeeded: "Succeeded",
  rejected: "Rejected",
  cancelled: "Cancelled",
};

/** A bulk action's verb as a button or heading starts it. */
export const BULK_ACTION_LABEL: Record<BulkAction, string> = {
  resume: "Resume",
  replay: "Replay",
  reject: "Reject",
  cancel: "Cancel",
};

export const TASK_STATUS_TONE: Record<TaskStatus, StatTone> = {
  queued: "info",
  running: "info",
  retry_wait: "warn",
  awaiting_approval: "warn",
  waiting: "info",
  dead: "bad",
  succeeded: "good",
  rejected: "neutral",
  cancelled: "neutral",
};

export const DEAD_REASON_LABEL: Record<DeadReason, string> = {
  exhausted: "Retries exhausted",
  non_retryable: "Non-retryable error",
  timeout: "Timed out",
  budget: "Over budget",
  outcome_unknown: "Outcome unknown",
  payload_mismatch: "Payload mismatch",
};

export const DEAD_REASON_HINT: Record<DeadReason, string> = {
  exhausted: "Failed on every attempt the retry policy allows.",
  non_retryable: "Failed with an error that retrying cannot fix.",
  timeout: "An attempt ran past the policy's time limit.",
  budget: "Spent the model budget the policy allows per task.",
  outcome_unknown: "A side effect started but its result was never recorded.",
  payload_mismatch: "The same key was performed again with different arguments.",
};

export const EFFECT_STATUS_LABEL: Record<EffectStatus, string> = {
  started: "In flight",
  succeeded: "Succeeded",
  failed: "Failed",
};

export const EFFECT_STATUS_TONE: Record<EffectStatus, StatTone> = {
  started: "info",
  succeeded: "good",
  failed: "bad",
};
