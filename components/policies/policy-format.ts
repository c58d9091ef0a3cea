// Names and units for retry-policy fields, shared by the policy tables, the history and the form:
// durations are shown and typed in seconds everywhere on the policies screen.
import { isDurationField, type PolicyField, type PolicyLevel } from "../../lib/domain/retry-policy";

export const POLICY_FIELD_LABEL: Record<PolicyField, string> = {
  maxAttempts: "Max attempts",
  backoffInitialMs: "First backoff",
  backoffFactor: "Backoff factor",
  backoffMaxMs: "Longest backoff",
  attemptTimeoutMs: "Attempt timeout",
  budget: "Model budget per task",
};

/** The unit a field is shown and typed in. */
export const POLICY_FIELD_UNIT: Record<PolicyField, string> = {
  maxAttempts: "attempts",
  backoffInitialMs: "seconds",
  backoffFactor: "×",
  backoffMaxMs: "seconds",
  attemptTimeoutMs: "seconds",
  budget: "cost units",
};

export const POLICY_FIELD_HINT: Record<PolicyField, string> = {
  maxAttempts: "Attempts before the task is dead-lettered as exhausted.",
  backoffInitialMs: "Ceiling of the wait after the first failure (full jitter: 0 up to this).",
  backoffFactor: "Each further failure multiplies the ceiling by this.",
  backoffMaxMs: "The ceiling never grows past this.",
  attemptTimeoutMs: "An attempt running longer is stopped and counts as failed.",
  budget: "Model cost one task may spend, in the provider's cost units.",
};

export const POLICY_SOURCE_LABEL: Record<PolicyLevel, string> = {
  task: "task override",
  agent: "agent row",
  code: "agent code",
  global: "global",
  "built-in": "built-in",
};

const plain = new Intl.NumberFormat("en-US", { maximumFractionDigits: 3 });
const money = new Intl.NumberFormat("en-US", {
  minimumFractionDigits: 2,
  maximumFractionDigits: 6,
});

/** Milliseconds as the seconds the form takes: 500 → "0.5 s", 60000 → "60 s". */
export function formatSeconds(ms: number): string {
  return `${plain.format(ms / 1_000)} s`;
}

/** A value as a person reads it; only a budget can be unset (no limit). */
export function formatPolicyValue(field: PolicyField, value: number | null): string {
  if (value === null) return field === "budget" ? "Unlimited" : "—";
  if (isDurationField(field)) return formatSeconds(value);
  switch (field) {
    case "backoffFactor":
      return `×${plain.format(value)}`;
    case "budget":
      return money.format(value);
    default:
      return plain.format(value);
  }
}

/** A value as the form's input holds it: durations in seconds, no grouping. */
export function formInputValue(field: PolicyField, value: number | null | undefined): string {
  if (value === null || value === undefined) return "";
  return String(isDurationField(field) ? value / 1_000 : value);
}
