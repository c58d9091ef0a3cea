// Flow control for one effect about to reach its provider: the tool's rate limit (a slot taken
// right before the call, after the claim decided it really goes out, so a deduplicated effect
// never spends one) and the provider's own 429 (RateLimitedError). Either way the provider did
// not act: the claim is released as not performed, `effect.rate_limited` says how long, and the
// task waits on its lease when the wait is short or goes back to the queue until then; neither
// spends an attempt.
import type pg from "pg";
import { z } from "zod";
import { type SqlClient, withTransaction } from "../../db/client";
import { retryOnConnectionError } from "../../db/retry";
import type { JsonValue } from "../../lib/domain/json";
import {
  MAX_RATE_LIMITED,
  type RateLimitSpec,
  rateLimitBucket,
  waitOrHandBack,
} from "../../lib/domain/rate-limit";
import type { Tool } from "../../lib/sdk/define";
import { NonRetryableError, type RateLimitedError } from "../../lib/sdk/errors";
import { appendThrough, type HeadRef } from "../../lib/server/ledger/append-known-head";
import { type NewLedgerEntry, taskStream } from "../../lib/server/ledger/append-ledger";
import { LeaseLostError, type SerializedError, SuspendError, serializeError } from "./errors";
import { type SlotAnswer, takeRateLimitSlot } from "./rate-limit";

type Runner = {
  pool: pg.Pool;
  worker: string;
  taskId: string;
  effectLeaseMs: number;
  signal: AbortSignal;
  head: HeadRef;
  /** Admins' tool rate limits by tool (tool_rate_limits, read with the claim): they win over the code's. */
  toolLimits?: ReadonlyMap<string, RateLimitSpec>;
};
type EntryFn = (kind: string, data: Record<string, JsonValue>) => NewLedgerEntry;

const bucketKeySchema = z.string().min(1).max(200);

/**
 * The slot is taken (`slotAt`, for effect.succeeded: when the call was let through): call the
 * provider now, or, with `reclaim`, claim the effect again first. Over the limit the claim is
 * released once with its `effect.rate_limited` entry; short waits are then sat out taking the
 * slot before claiming again (one release and one entry per effect, however many waits), and a
 * long one hands the task back.
 */
export async function takeSlotOrWait(
  run: Runner,
  tool: Tool,
  args: unknown,
  key: string,
  entry: EntryFn,
): Promise<{ slotAt?: string; reclaim?: true }> {
  const admin = run.toolLimits?.get(tool.name);
  const code = tool.rateLimit;
  const spec = admin ?? (code && { limit: code.limit, periodMs: code.periodMs });
  if (!spec) return {};
  let bucketKey: string | undefined;
  let slot: SlotAnswer;
  try {
    bucketKey = bucketKeyOf(tool, args);
    slot = await takeRateLimitSlot(run.pool, rateLimitBucket(tool.name, bucketKey), spec);
  } catch (err) {
    // The provider was not asked: end our claim as not performed, or the heartbeat would keep
    // it "in flight" and a later attempt would find its outcome unknown.
    await release(run, key, serializeError(err), {
      ...entry("effect.failed", { performed: "no", error: serializeError(err) }),
    });
    throw err;
  }
  if (slot.granted) return { slotAt: slot.at.toISOString() };
  const { waitMs } = slot;
  const handBack = waitOrHandBack(waitMs, run.effectLeaseMs) === "hand-back";
  const released = await release(run, key, limited(`${tool.name}'s rate limit`), {
    ...entry("effect.rate_limited", {
      source: "limit",
      waitMs,
      limit: spec.limit,
      periodMs: spec.periodMs,
      setBy: admin ? "admin" : "code",
      handedBack: handBack,
      // The key comes from the arguments: left out for a tool that redacts any of them.
      ...(bucketKey === undefined || (tool.sensitive?.length ?? 0) > 0 ? {} : { bucketKey }),
    }),
  });
  if (!released) throw new LeaseLostError(`lost the claim on effect ${key.slice(0, 12)}…`);
  const bucket = rateLimitBucket(tool.name, bucketKey);
  let wait = waitMs;
  for (;;) {
    if (waitOrHandBack(wait, run.effectLeaseMs) === "hand-back") {
      throw new SuspendError(
        new Date(Date.now() + wait),
        `${tool.name}'s rate limit (${spec.limit} per ${spec.periodMs} ms): a slot frees in ${wait} ms`,
      );
    }
    await sleep(wait, run.signal);
    // The claim is released: a slot taken here that the claim then finds deduplicated is
    // spent without a call, which can only leave the provider fewer calls than the limit.
    const again = await takeRateLimitSlot(run.pool, bucket, spec);
    if (again.granted) return { slotAt: again.at.toISOString(), reclaim: true };
    wait = again.waitMs;
  }
}

function bucketKeyOf(tool: Tool, args: unknown): string | undefined {
  const keyOf = tool.rateLimit?.key;
  if (!keyOf) return undefined;
  const parsed = bucketKeySchema.safeParse(keyOf(args));
  if (!parsed.success) {
    throw new NonRetryableError(
      `${tool.name}: rateLimit.key must return a string of 1 to 200 characters`,
    );
  }
  return parsed.data;
}

const limited = (message: string): SerializedError => ({ name: "RateLimited", message });

/** releaseNotPerformed through a database outage; a try whose COMMIT answer was lost counts. */
function release(run: Runner, key: string, why: SerializedError, ledgerEntry: NewLedgerEntry) {
  return retryOnConnectionError(
    async ({ inDoubt }) => (await releaseNotPerformed(run, key, why, ledgerEntry)) || inDoubt,
  );
}

/**
 * A provider's 429: the effect is released as not performed and the task goes back to the
 * queue until the provider's Retry-After. Past MAX_RATE_LIMITED 429s of one effect, undefined:
 * the caller treats it as an ordinary not-performed failure, which spends an attempt, so a
 * provider that never lets up ends in the dead letters instead of looping forever.
 */
export async function providerRateLimited(
  run: Runner,
  tool: Tool,
  key: string,
  err: RateLimitedError,
  entry: EntryFn,
): Promise<SuspendError | undefined> {
  const { rows } = await retryOnConnectionError(() =>
    run.pool.query<{ n: number }>({
      name: "runtime_count_rate_limited",
      // The key's entries are on its task's stream: the (stream, seq) key finds them.
      text: `select count(*)::int as n from ledger_entries
             where stream = $2 and key = $1 and kind = 'effect.rate_limited' and data->>'source' = 'provider'`,
      values: [key, taskStream(run.taskId)],
    }),
  );
  const seen = rows[0]?.n ?? 0;
  if (seen >= MAX_RATE_LIMITED) return undefined;
  const released = await release(
    run,
    key,
    limited("the provider's rate limit"),
    entry("effect.rate_limited", {
      source: "provider",
      retryAfterMs: err.retryAfterMs,
      count: seen + 1,
      error: serializeError(err),
    }),
  );
  if (!released) return undefined;
  return new SuspendError(
    new Date(Date.now() + err.retryAfterMs),
    `${tool.name}: the provider's rate limit, retry after ${err.retryAfterMs} ms`,
  );
}

/** Ends our claim as not performed (the key may act again) with its entry; false if it moved on. */
async function releaseNotPerformed(
  run: Runner,
  key: string,
  why: SerializedError,
  ledgerEntry: NewLedgerEntry,
): Promise<boolean> {
  const released = await withTransaction(run.pool, async (client: SqlClient) => {
    const { rowCount } = await client.query({
      name: "runtime_effect_rate_limited",
      text: `update effects set status = 'failed', error = $3,
               lease_expires_at = now(), lease_owner = null, updated_at = now()
             where key = $1 and status = 'started' and lease_owner = $2`,
      values: [key, run.worker, JSON.stringify(why)],
    });
    if (rowCount === 0) return false;
    await appendThrough(client, run.head, ledgerEntry);
    return true;
  });
  // That append moved the stream's head past what this attempt knows: read it afresh next time.
  run.head.current = undefined;
  return released;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
