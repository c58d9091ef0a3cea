// Names and units for retry-policy fields, shared by the policy tables, the history and the form:
// durations are shown and typed in seconds everywhere on the policies screen.
import { isDurationField, type PolicyField } from "../../lib/domain/retry-policy";

// Labels and value formats are the ledger summary's too, so they live in lib/domain.
export {
  formatPolicyValue,
  formatSeconds,
  POLICY_FIELD_LABEL,
  POLICY_SOURCE_LABEL,
} from "../../lib/domain/policy-text";

/** The unit a field is shown and typed in. */
export const POLICY_FIELD_UNIT: Record<PolicyField, string> = {
  maxAttempts: "attempts",
  backoffInitialMs: "seconds",
  backoffFactor: "×",
  backoffMaxMs: "seconds",
  attemptTimeoutMs: "seconds",
  budget: "cost units",
  concurrencyLimit: "tasks",
};

export const POLICY_FIELD_HINT: Record<PolicyField, string> = {
  maxAttempts: "Attempts before the task is dead-lettered as exhausted.",
  backoffInitialMs: "Ceiling of the wait after the first failure (full jitter: 0 up to this).",
  backoffFactor: "Each further failure multiplies the ceiling by this.",
  backoffMaxMs: "The ceiling never grows past this.",
  attemptTimeoutMs: "An attempt running longer is stopped and counts as failed.",
  budget: "Model cost one task may spend, in the provider's cost units.",
  concurrencyLimit:
    "Tasks of the agent running at once, across all workers; per concurrency key when its code declares one. Agents only.",
};

/** A value as the form's input holds it: durations in seconds, no grouping. */
export function formInputValue(field: PolicyField, value: number | null | undefined): string {
  if (value === null || value === undefined) return "";
  return String(isDurationField(field) ? value / 1_000 : value);
}
