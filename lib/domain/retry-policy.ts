// Retry policy: resolution (task override → agent row → agent code → global → built-in, with the
// level each value comes from) and backoff with full jitter. Pure: the caller passes the levels
// and the random number. The worker and the retry-policies screen resolve through the same
// function, so what the screen says is in force is what the worker applies.
import { z } from "zod";

/**
 * Bounds in milliseconds; forms that take seconds word their errors from these. Each is what
 * the runtime can honour: the millisecond fields are int4 columns and the attempt timeout is a
 * setTimeout (both cap at 2^31-1 ms, about 24.8 days), and every bound is finite, so a value
 * like 1e309 (Infinity once parsed) or a 400-digit number is refused rather than stored.
 */
export const POLICY_BOUNDS = {
  maxAttempts: { min: 1, max: 1000 },
  backoffInitialMs: { min: 0, max: 86_400_000 },
  backoffFactor: { min: 1, max: 100 },
  backoffMaxMs: { min: 0, max: 7 * 86_400_000 },
  attemptTimeoutMs: { min: 1, max: 86_400_000 },
  /** A model budget per task of a million cost units is no limit a person means to set. */
  budget: { min: 0, max: 1_000_000 },
  /** Tasks of one agent running at once (per concurrency key when keyed); issue 21. */
  concurrencyLimit: { min: 1, max: 10_000 },
} as const;

const B = POLICY_BOUNDS;

type PolicyFieldName = keyof typeof POLICY_BOUNDS;

/** A number within a field's bounds, the refusal naming them (API callers read these too). */
function bounded(field: PolicyFieldName, int: boolean) {
  const { min, max } = B[field];
  const base = z.number({ error: "must be a finite number" });
  return (int ? base.int({ error: "must be a whole number" }) : base)
    .min(min, { error: `must be at least ${min}` })
    .max(max, { error: `must be at most ${max}` });
}

export const retryPolicySchema = z.object({
  maxAttempts: bounded("maxAttempts", true),
  backoffInitialMs: bounded("backoffInitialMs", true),
  backoffFactor: bounded("backoffFactor", false),
  backoffMaxMs: bounded("backoffMaxMs", true),
  attemptTimeoutMs: bounded("attemptTimeoutMs", true),
  /** Model cost allowed per task, in the provider's cost units; null means unlimited. */
  budget: bounded("budget", false).nullable(),
  /**
   * At most this many of the agent's tasks running at once, per concurrency key when the code
   * declares one; null means no limit. Set by the agent's code or its admin row, never by a task
   * or the global row: it is enforced in the claim, for the agent as a whole.
   */
  concurrencyLimit: bounded("concurrencyLimit", true).nullable(),
});
export type RetryPolicy = z.infer<typeof retryPolicySchema>;

/** A level of the resolution chain: any field may be absent (falls through). */
export const partialRetryPolicySchema = retryPolicySchema.partial();

/**
 * A task's own override, and the retry policy an agent's code declares: every field but the
 * concurrency limit, which is the agent's as a whole (`defineAgent({ concurrency })` or its row).
 */
export const taskPolicySchema = retryPolicySchema
  .omit({ concurrencyLimit: true })
  .partial()
  .extend({
    concurrencyLimit: z
      .undefined({
        error:
          "is not a task's: set it with defineAgent's concurrency option or the agent's policy row",
      })
      .optional(),
  });
export type TaskPolicy = z.infer<typeof taskPolicySchema>;
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
  "concurrencyLimit",
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
  concurrency_limit: number | null;
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
    concurrencyLimit: row.concurrency_limit ?? undefined,
  };
}

export const BUILT_IN_POLICY: RetryPolicy = {
  maxAttempts: 5,
  backoffInitialMs: 1_000,
  backoffFactor: 2,
  backoffMaxMs: 60_000,
  attemptTimeoutMs: 60_000,
  budget: null,
  concurrencyLimit: null,
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

/** A value in force at a scope and the level it comes from (a null budget is unlimited). */
export type PolicyCell = { value: number | null; source: PolicyLevel };

/** One field of a policy.changed entry: null where the row did not set it (before or after). */
export type PolicyFieldChange = {
  field: PolicyField;
  before: number | null;
  after: number | null;
  /**
   * What was in force at the scope before and after the change, and where it came from (the
   * agent's code, the global row, built-in). Null for entries written before set-policy
   * recorded it: those only know what the row itself held.
   */
  inForce: { before: PolicyCell; after: PolicyCell } | null;
};

/** The level a scope's own row is in the resolution chain. */
export function levelOfScope(scope: string): PolicyLevel {
  return scope === "global" ? "global" : "agent";
}

/**
 * For each field whose row value the change sets differently, the value in force at the scope
 * before and after it with its level: an agent row over the agent's code over the global row,
 * or the global row over the built-in defaults. `below` is what the scope's row falls through
 * to (for an agent: its code and the global row; nothing for the global row).
 */
export function policyInForceChanges(
  scope: string,
  before: PartialRetryPolicy | null,
  after: PartialRetryPolicy,
  below: Pick<PolicyLevels, "code" | "global">,
): Partial<Record<PolicyField, { before: PolicyCell; after: PolicyCell }>> {
  const own = scope === "global" ? "global" : "agent";
  const levels = (row: PartialRetryPolicy | null): PolicyLevels =>
    own === "global" ? { global: row } : { ...below, agent: row };
  const was = resolvePolicyWithSources(levels(before));
  const now = resolvePolicyWithSources(levels(after));
  const out: Partial<Record<PolicyField, { before: PolicyCell; after: PolicyCell }>> = {};
  for (const f of POLICY_FIELDS) {
    if ((before?.[f] ?? null) === (after[f] ?? null)) continue;
    out[f] = {
      before: { value: was.policy[f], source: was.sources[f] },
      after: { value: now.policy[f], source: now.sources[f] },
    };
  }
  return out;
}

// Entries are read as they were written: no bounds (a bound tightened later must not make an
// old entry unreadable), only the shape.
const recordedNumber = z.number().nullable().optional();
const changeSideSchema = z
  .object(Object.fromEntries(POLICY_FIELDS.map((f) => [f, recordedNumber])))
  .nullable();
const cellSchema = z.object({ value: z.number().nullable(), source: z.enum(POLICY_LEVELS) });
const inForceSchema = z
  .record(z.string(), z.object({ before: cellSchema, after: cellSchema }))
  .nullable()
  .catch(null);

/**
 * The fields a policy.changed entry's before and after differ in, in screen order, with what
 * was in force before and after where the entry recorded it (`inForce`); null when either side
 * is not a policy (an entry some other writer shaped differently).
 */
export function policyFieldChanges(
  before: unknown,
  after: unknown,
  inForce?: unknown,
): PolicyFieldChange[] | null {
  const b = changeSideSchema.safeParse(before ?? null);
  const a = changeSideSchema.safeParse(after ?? null);
  if (!b.success || !a.success || a.data === null) return null;
  const forced = inForceSchema.parse(inForce ?? null);
  const value = (p: Record<string, number | null | undefined> | null, f: PolicyField) =>
    p?.[f] ?? null;
  return POLICY_FIELDS.filter((f) => value(b.data, f) !== value(a.data, f)).map((field) => ({
    field,
    before: value(b.data, field),
    after: value(a.data, field),
    inForce: forced?.[field] ?? null,
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
