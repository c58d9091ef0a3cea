// Retry policy: resolution (task override → agent policy → global default → built-in) and
// backoff with full jitter. Pure: the caller passes the rows and the random number.
import { z } from "zod";

export const retryPolicySchema = z.object({
  maxAttempts: z.number().int().min(1).max(1000),
  backoffInitialMs: z.number().int().min(0).max(86_400_000),
  backoffFactor: z.number().min(1).max(100),
  backoffMaxMs: z
    .number()
    .int()
    .min(0)
    .max(7 * 86_400_000),
  attemptTimeoutMs: z.number().int().min(1).max(86_400_000),
  /** Model cost allowed per task, in the provider's cost units; null means unlimited. */
  budget: z.number().min(0).nullable(),
});
export type RetryPolicy = z.infer<typeof retryPolicySchema>;

/** A level of the resolution chain: any field may be absent (falls through). */
export const partialRetryPolicySchema = retryPolicySchema.partial();
export type PartialRetryPolicy = z.infer<typeof partialRetryPolicySchema>;

export const BUILT_IN_POLICY: RetryPolicy = {
  maxAttempts: 5,
  backoffInitialMs: 1_000,
  backoffFactor: 2,
  backoffMaxMs: 60_000,
  attemptTimeoutMs: 60_000,
  budget: null,
};

function defined(p: PartialRetryPolicy | null | undefined): PartialRetryPolicy {
  if (!p) return {};
  return Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined && v !== null));
}

/** First level that sets a field wins: task, then agent, then global, then built-in. */
export function resolvePolicy(levels: {
  task?: PartialRetryPolicy | null;
  agent?: PartialRetryPolicy | null;
  global?: PartialRetryPolicy | null;
}): RetryPolicy {
  return {
    ...BUILT_IN_POLICY,
    ...defined(levels.global),
    ...defined(levels.agent),
    ...defined(levels.task),
  };
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
