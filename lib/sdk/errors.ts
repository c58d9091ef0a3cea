// Errors agent and tool authors throw to steer the runtime. Anything else is retryable.

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
