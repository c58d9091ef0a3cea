// What counts as "the database went away" (a restart, a failover, a dropped socket) and the one
// retry loop the worker and the web app share for it. Only connection errors are retried here;
// a constraint violation or a lost lease is an answer from the database, not an outage.

/** SQLSTATEs of a server that is stopping, restarting or not yet accepting connections. */
const CONNECTION_SQLSTATES = new Set(["57P01", "57P02", "57P03"]);
const SOCKET_ERRNOS = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH"]);
// pg reports a dead socket, a refused checkout and a client it already gave up on by message only.
const CONNECTION_MESSAGES =
  /Connection terminated|connection error and is not queryable|Client was closed and is not queryable|timeout exceeded when trying to connect|the database system is (starting up|shutting down|in recovery mode)/i;

/**
 * The COMMIT was sent and its answer never came: the transaction may or may not have committed.
 * Retrying it blindly could apply it twice; the caller must re-check what the database holds.
 */
export class CommitInDoubtError extends Error {
  override name = "CommitInDoubtError";
  constructor(readonly original: unknown) {
    super(
      `the connection was lost during COMMIT: ${original instanceof Error ? original.message : String(original)}`,
      { cause: original },
    );
  }
}

export function isConnectionError(err: unknown): boolean {
  if (err instanceof CommitInDoubtError) return true;
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string") {
    if (CONNECTION_SQLSTATES.has(code) || SOCKET_ERRNOS.has(code)) return true;
    // Class 08: connection exception (08000, 08003, 08006, 08001, 08004, …).
    if (/^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  if (CONNECTION_MESSAGES.test(err.message)) return true;
  // An AggregateError (several addresses refused) or a wrapped cause.
  if (err instanceof AggregateError) return err.errors.some(isConnectionError);
  return err.cause !== undefined && err.cause !== err && isConnectionError(err.cause);
}

export type Backoff = { initialMs: number; maxMs: number };
export const DEFAULT_BACKOFF: Backoff = { initialMs: 100, maxMs: 5_000 };

/**
 * The delay before retry number `attempt` (0 for the first retry): doubling from `initialMs`,
 * capped at `maxMs`, with "equal jitter" (half fixed, half random) so a fleet that lost the
 * same server does not come back in lockstep, yet never retries at once in a tight loop.
 */
export function backoffDelay(attempt: number, backoff: Backoff, random = Math.random): number {
  const base = Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.min(attempt, 30));
  return Math.round(base / 2 + (random() * base) / 2);
}

export type RetryState = {
  /** 0 on the first try. */
  attempt: number;
  /** A previous try failed during COMMIT: what it wrote may be there already. */
  inDoubt: boolean;
};

export type RetryOptions = {
  backoff?: Backoff;
  /** Stop retrying (and throw the last error) once this has been tried for this long. */
  giveUpAfterMs?: number;
  /** Stop retrying when this aborts (the worker is stopping). */
  signal?: AbortSignal;
  onRetry?: (err: unknown, attempt: number, delayMs: number) => void;
  random?: () => number;
};

/** Runs `fn`; on a connection error waits (backoff) and runs it again, until it answers. */
export async function retryOnConnectionError<T>(
  fn: (state: RetryState) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const began = Date.now();
  let inDoubt = false;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn({ attempt, inDoubt });
    } catch (err) {
      if (!isConnectionError(err)) throw err;
      if (err instanceof CommitInDoubtError) inDoubt = true;
      const delay = backoffDelay(attempt, backoff, options.random);
      const outOfTime =
        options.giveUpAfterMs !== undefined && Date.now() - began + delay > options.giveUpAfterMs;
      if (outOfTime || options.signal?.aborted) throw err;
      options.onRetry?.(err, attempt, delay);
      await sleep(delay, options.signal);
    }
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
