// Names and units for retry-policy fields, shared by the policy tables.
import type { PolicyField, PolicySource } from "../../lib/server/queries/list-retry-policies";
import { formatDuration } from "../ui/duration";

export const POLICY_FIELD_LABEL: Record<PolicyField, string> = {
  maxAttempts: "Max attempts",
  backoffInitialMs: "First backoff",
  backoffFactor: "Backoff factor",
  backoffMaxMs: "Longest backoff",
  attemptTimeoutMs: "Attempt timeout",
  budget: "Model budget per task",
};

export const POLICY_FIELD_HINT: Record<PolicyField, string> = {
  maxAttempts: "Attempts before the task is dead-lettered as exhausted.",
  backoffInitialMs: "Ceiling of the wait after the first failure (full jitter: 0 up to this).",
  backoffFactor: "Each further failure multiplies the ceiling by this.",
  backoffMaxMs: "The ceiling never grows past this.",
  attemptTimeoutMs: "An attempt running longer is stopped and counts as failed.",
  budget: "Model cost one task may spend, in the provider's cost units.",
};

export const POLICY_SOURCE_LABEL: Record<PolicySource, string> = {
  agent: "agent",
  global: "global",
  "built-in": "built-in",
};

const plain = new Intl.NumberFormat("en-US", { maximumFractionDigits: 3 });
const money = new Intl.NumberFormat("en-US", {
  minimumFractionDigits: 2,
  maximumFractionDigits: 6,
});

export function formatMs(ms: number): string {
  if (ms < 1_000) return `${plain.format(ms)} ms`;
  if (ms % 1_000 === 0) return formatDuration(ms / 1_000);
  return `${plain.format(ms / 1_000)} s`;
}

/** A value in force as a person reads it; only a budget can be unset (no limit). */
export function formatPolicyValue(field: PolicyField, value: number | null): string {
  if (value === null) return field === "budget" ? "Unlimited" : "—";
  switch (field) {
    case "maxAttempts":
      return plain.format(value);
    case "backoffFactor":
      return `×${plain.format(value)}`;
    case "budget":
      return money.format(value);
    default:
      return formatMs(value);
  }
}
