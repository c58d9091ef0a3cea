// Retry policy: resolution (task override → agent row → agent code → global → built-in, with the
// level each value comes from) and backoff with full jitter. Pure: the caller passes the levels
// and the random number. The worker and the retry-policies screen resolve through the same
// function, so what the screen says is in force is what the worker applies.
import { z } from "zod";

/** Bounds in milliseconds; forms that take seconds word their errors from these. */
export const POLICY_BOUNDS = {
  maxAttempts: { min: 1, max: 1000 },
  backoffInitialMs: { min: 0, max: 86_400_000 },
  backoffFactor: { min: 1, max: 100 },
  backoffMaxMs: { min: 0, max: 7 * 86_400_000 },
  attemptTimeoutMs: { min: 1, max: 86_400_000 },
  budget: { min: 0, max: Number.POSITIVE_INFINITY },
} as const;

const B = POLICY_BOUNDS;

export const retryPolicySchema = z.object({
  maxAttempts: z.number().int().min(B.maxAttempts.min).max(B.maxAttempts.max),
  backoffInitialMs: z.number().int().min(B.backoffInitialMs.min).max(B.backoffInitialMs.max),
  backoffFactor: z.number().min(B.backoffFactor.min).max(B.backoffFactor.max),
  backoffMaxMs: z.number().int().min(B.backoffMaxMs.min).max(B.backoffMaxMs.max),
  attemptTimeoutMs: z.number().int().min(B.attemptTimeoutMs.min).max(B.attemptTimeoutMs.max),
  /** Model cost allowed per task, in the provider's cost units; null means unlimited. */
  budget: z.number().min(B.budget.min).nullable(),
});
export type RetryPolicy = z.infer<typeof retryPolicySchema>;

/** A level of the resolution chain: any field may be absent (falls through). */
export const partialRetryPolicySchema = retryPolicySchema.partial();
export type PartialRetryPolicy = z.infer<typeof partialRetryPolicySchema>;

/** The scopes a policy row may have: the global floor or one agent's override. */
export const POLICY_SCOPE = /^(global|agent:[a-z][a-z0-9-]*)$/;

/** Fields in the order screens show them. */
export const POLICY_FIELDS = [
  "maxAttempts",
  "backoffInitialMs",
  "backoffFactor",
  "backoffMaxMs",
  "attemptTimeoutMs",
  "budget",
] as const satisfies readonly (keyof RetryPolicy)[];
export type PolicyField = (typeof POLICY_FIELDS)[number];

/** The fields held in milliseconds (people read and type them in seconds). */
export const DURATION_FIELDS = [
  "backoffInitialMs",
  "backoffMaxMs",
  "attemptTimeoutMs",
] as const satisfies readonly PolicyField[];

export function isDurationField(field: PolicyField): boolean {
  return (DURATION_FIELDS as readonly PolicyField[]).includes(field);
}

/** A retry_policies row's policy columns as pg returns them; null leaves a field to the next level. */
export type PolicyColumns = {
  max_attempts: number | null;
  backoff_initial_ms: number | null;
  backoff_factor: number | null;
  backoff_max_ms: number | null;
  attempt_timeout_ms: number | null;
  budget: number | null;
};

/** The policy a row sets: the fields it leaves null are absent, so resolution falls through. */
export function policyFromColumns(row: PolicyColumns): PartialRetryPolicy {
  return {
    maxAttempts: row.max_attempts ?? undefined,
    backoffInitialMs: row.backoff_initial_ms ?? undefined,
    backoffFactor: row.backoff_factor ?? undefined,
    backoffMaxMs: row.backoff_max_ms ?? undefined,
    attemptTimeoutMs: row.attempt_timeout_ms ?? undefined,
    budget: row.budget ?? undefined,
  };
}

export const BUILT_IN_POLICY: RetryPolicy = {
  maxAttempts: 5,
  backoffInitialMs: 1_000,
  backoffFactor: 2,
  backoffMaxMs: 60_000,
  attemptTimeoutMs: 60_000,
  budget: null,
};

/**
 * The levels, first match wins. DESIGN.md orders task override → agent policy → global default;
 * the agent policy is two levels: the admin's `agent:<name>` row over the defaults the agent
 * declares in its code, because the row is how an admin corrects the code without a deploy.
 */
export const POLICY_LEVELS = ["task", "agent", "code", "global", "built-in"] as const;
export type PolicyLevel = (typeof POLICY_LEVELS)[number];
type SetLevel = Exclude<PolicyLevel, "built-in">;

/** What each level sets; an absent or null field (or level) falls through. */
export type PolicyLevels = Partial<Record<SetLevel, PartialRetryPolicy | null | undefined>>;

export type ResolvedPolicy = {
  policy: RetryPolicy;
  /** The level each value comes from. */
  sources: Record<PolicyField, PolicyLevel>;
};

const SET_LEVELS = POLICY_LEVELS.filter((l): l is SetLevel => l !== "built-in");

/** Each field from the first level that sets it; a null budget in a level is "not set". */
export function resolvePolicyWithSources(levels: PolicyLevels): ResolvedPolicy {
  const policy: RetryPolicy = { ...BUILT_IN_POLICY };
  const sources = Object.fromEntries(POLICY_FIELDS.map((f) => [f, "built-in"])) as Record<
    PolicyField,
    PolicyLevel
  >;
  for (const field of POLICY_FIELDS) {
    for (const level of SET_LEVELS) {
      const value = levels[level]?.[field];
      if (value === undefined || value === null) continue;
      policy[field] = value;
      sources[field] = level;
      break;
    }
  }
  return { policy, sources };
}

export function resolvePolicy(levels: PolicyLevels): RetryPolicy {
  return resolvePolicyWithSources(levels).policy;
}

/**
 * What `level` would inherit for each field: the resolution of the levels below it. A form
 * editing that level shows it as the value an empty field falls through to.
 */
export function inheritedBy(level: SetLevel, levels: PolicyLevels): ResolvedPolicy {
  const below = SET_LEVELS.slice(SET_LEVELS.indexOf(level) + 1);
  return resolvePolicyWithSources(Object.fromEntries(below.map((l) => [l, levels[l]])));
}

/** One field of a policy.changed entry: null where the row did not set it (before or after). */
export type PolicyFieldChange = {
  field: PolicyField;
  before: number | null;
  after: number | null;
};

const changeSideSchema = partialRetryPolicySchema.nullable();

/**
 * The fields a policy.changed entry's before and after differ in, in screen order; null when
 * either side is not a policy (an entry some other writer shaped differently).
 */
export function policyFieldChanges(before: unknown, after: unknown): PolicyFieldChange[] | null {
  const b = changeSideSchema.safeParse(before ?? null);
  const a = changeSideSchema.safeParse(after ?? null);
  if (!b.success || !a.success || a.data === null) return null;
  const value = (p: PartialRetryPolicy | null, f: PolicyField) => p?.[f] ?? null;
  return POLICY_FIELDS.filter((f) => value(b.data, f) !== value(a.data, f)).map((field) => ({
    field,
    before: value(b.data, field),
    after: value(a.data, field),
  }));
}

/**
 * Delay before the attempt after `failedAttempt` (1-based), with full jitter: uniform in
 * [0, min(max, initial · factor^(n-1))]. `random` is in [0, 1).
 */
export function backoffDelayMs(policy: RetryPolicy, failedAttempt: number, random: number): number {
  const exponent = Math.max(0, failedAttempt - 1);
  const ceiling = Math.min(
    policy.backoffMaxMs,
    policy.backoffInitialMs * policy.backoffFactor ** exponent,
  );
  return Math.floor(Math.min(Math.max(random, 0), 0.999_999_999) * ceiling);
}
