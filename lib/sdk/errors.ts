// Errors agent and tool authors throw to steer the runtime. Anything else is retryable.
import { MAX_RETRY_AFTER_MS, parseRetryAfter } from "../domain/rate-limit";

/** The task cannot succeed by trying again (bad input, a 4xx from a provider): dead-letter it. */
export class NonRetryableError extends Error {
  override name = "NonRetryableError";
}

/**
 * Thrown by a tool's execute when the provider certainly did not act (it refused before doing
 * anything: a validation error, a 502 from a proxy). The effect is recorded as failed and may
 * run again with the same key; `retryable: false` dead-letters the task instead.
 */
export class EffectNotPerformedError extends Error {
  override name = "EffectNotPerformedError";
  readonly retryable: boolean;
  constructor(message: string, opts: { retryable?: boolean; cause?: unknown } = {}) {
    super(message, { cause: opts.cause });
    this.retryable = opts.retryable ?? true;
  }
}

/**
 * Thrown by a tool's execute when the provider refused for its rate limit (an HTTP 429): it did
 * not act. The runtime releases the effect, records `effect.rate_limited` and puts the task back
 * in the queue until `retryAfterMs` has passed, without spending an attempt. The wait is capped
 * at an hour; without one the runtime waits a second. `rateLimitedFrom(response)` reads the
 * Retry-After header for you.
 */
export class RateLimitedError extends EffectNotPerformedError {
  override name = "RateLimitedError";
  readonly retryAfterMs: number;
  constructor(opts: { retryAfterMs?: number; message?: string; cause?: unknown } = {}) {
    const wait = Math.min(Math.max(0, opts.retryAfterMs ?? 1_000), MAX_RETRY_AFTER_MS);
    super(opts.message ?? `rate limited by the provider: retry after ${wait} ms`, {
      cause: opts.cause,
    });
    this.retryAfterMs = Number.isFinite(wait) ? wait : 1_000;
  }
}

/** The RateLimitedError for a provider's 429, its wait read from the Retry-After header. */
export function rateLimitedFrom(response: {
  status: number;
  headers: { get(name: string): string | null };
}): RateLimitedError {
  const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
  return new RateLimitedError({
    retryAfterMs,
    message: `the provider answered ${response.status}${retryAfterMs === undefined ? "" : `, retry after ${retryAfterMs} ms`}`,
  });
}
