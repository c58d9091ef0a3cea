// Retry-policy fields and values as people read them, shared by the policies screen and the
// ledger's one-line summary of a policy.changed entry: durations in seconds, where a value in
// force came from, and "6 (agent code) → 5". Pure.
import {
  isDurationField,
  levelOfScope,
  type PolicyField,
  type PolicyFieldChange,
  type PolicyLevel,
} from "./retry-policy";

export const POLICY_FIELD_LABEL: Record<PolicyField, string> = {
  maxAttempts: "Max attempts",
  backoffInitialMs: "First backoff",
  backoffFactor: "Backoff factor",
  backoffMaxMs: "Longest backoff",
  attemptTimeoutMs: "Attempt timeout",
  budget: "Model budget per task",
  concurrencyLimit: "Running at once",
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

/** A value as a person reads it; only a budget and a concurrency limit can be unset (no limit). */
export function formatPolicyValue(field: PolicyField, value: number | null): string {
  if (value === null) return field === "budget" || field === "concurrencyLimit" ? "Unlimited" : "—";
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

/**
 * Both sides of a changed field as text. A value in force is followed by where it came from
 * unless that is the scope's own row ("6 (agent code)", "5"); an entry that did not record what
 * was in force says what its row held ("inherited" where the row did not set the field).
 */
export function policyChangeSides(
  scope: string | null,
  c: PolicyFieldChange,
): { before: string; after: string } {
  if (c.inForce) {
    const own = scope === null ? null : levelOfScope(scope);
    const side = (cell: { value: number | null; source: PolicyLevel }) => {
      const v = formatPolicyValue(c.field, cell.value);
      return cell.source === own ? v : `${v} (${POLICY_SOURCE_LABEL[cell.source]})`;
    };
    return { before: side(c.inForce.before), after: side(c.inForce.after) };
  }
  const row = (v: number | null) => {
    if (v !== null) return formatPolicyValue(c.field, v);
    if (scope === "global") {
      return c.field === "budget" || c.field === "concurrencyLimit" ? "Unlimited" : "built-in";
    }
    return "inherited";
  };
  return { before: row(c.before), after: row(c.after) };
}

/** "Max attempts 6 (agent code) → 5", for each changed field. */
export function describePolicyChange(scope: string | null, c: PolicyFieldChange): string {
  const { before, after } = policyChangeSides(scope, c);
  return `${POLICY_FIELD_LABEL[c.field]} ${before} → ${after}`;
}
