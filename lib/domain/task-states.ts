// Task states and dead-letter reasons, as ../shared/DESIGN.md names them.
export const TASK_STATUSES = [
  "queued",
  "running",
  "retry_wait",
  "awaiting_approval",
  "waiting",
  "dead",
  "succeeded",
  "rejected",
  "cancelled",
] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const TERMINAL_STATUSES: readonly TaskStatus[] = ["succeeded", "rejected", "cancelled"];

export const DEAD_REASONS = [
  "exhausted",
  "non_retryable",
  "timeout",
  "budget",
  "outcome_unknown",
  "payload_mismatch",
] as const;
export type DeadReason = (typeof DEAD_REASONS)[number];

export const STEP_KINDS = ["model", "tool", "step", "sleep", "spawn", "wait", "join"] as const;
export type StepKind = (typeof STEP_KINDS)[number];

/** An event wait (ctx.waitForEvent): open, given its event, or past its deadline. */
export const WAIT_STATUSES = ["waiting", "delivered", "timed_out"] as const;
export type WaitStatus = (typeof WAIT_STATUSES)[number];

export const EFFECT_STATUSES = ["started", "succeeded", "failed"] as const;
export type EffectStatus = (typeof EFFECT_STATUSES)[number];

export function isTerminal(status: TaskStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}
