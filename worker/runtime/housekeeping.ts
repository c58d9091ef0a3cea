// Housekeeping for the flow-control tables: expired events nothing refers to, and rate-limit
// buckets no window can count any more, deleted in small batches every HOUSEKEEPING_MS by every
// worker; and the ledger's monthly partitions, made two months ahead (partitions.ts). One process at a time does it (a transaction-scoped advisory lock per batch; the
// others skip their pass), and each delete is idempotent and guarded in its own WHERE, so a pass
// that races another, a send or a take changes nothing it should not.
// Event waits are left alone: the task page's Events card shows every wait of a task, open or
// closed, and a delivered wait is what a replay of its step and a later wait of its task read.
import type pg from "pg";
import { withTransaction } from "../../db/client";
import {
  EVENT_PURGE_START,
  type EventPurgeCursor,
  purgeExpiredEvents,
} from "../../lib/server/commands/event-sql";
import { ensureLedgerPartitions } from "../../lib/server/ledger/partitions";
import { type Periodic, startPeriodic } from "./periodic";
import { purgeIdleRateLimits } from "./rate-limit";

export const HOUSEKEEPING_MS = 60_000;
/** Rows one statement looks at: a batch holds its row locks only that long. */
const BATCH = 1_000;
/** Batches of each kind one pass runs at most; what is left is for the next pass. */
const MAX_BATCHES = 20;
/** An event is deleted this long after it expired, not at once (see purgeExpiredEvents). */
const EVENT_GRACE_MS = 3_600_000;

export type HousekeepingOptions = { batch?: number; maxBatches?: number; eventGraceMs?: number };

export type HousekeepingResult = {
  /** False: another process held the housekeeping lock, so this pass did nothing. */
  ran: boolean;
  events: number;
  rateLimits: number;
  /** Monthly ledger partitions made by this pass (one a month, normally). */
  partitions: number;
};

/**
 * One process's housekeeping: it remembers where its event purge stopped, so a pass looks only
 * at events that expired since (the first pass looks at them all, once).
 */
export function housekeeper(pool: pg.Pool, opts: HousekeepingOptions = {}) {
  const batch = opts.batch ?? BATCH;
  const maxBatches = opts.maxBatches ?? MAX_BATCHES;
  const graceMs = opts.eventGraceMs ?? EVENT_GRACE_MS;
  let cursor: EventPurgeCursor = EVENT_PURGE_START;

  /** One batch in its own transaction, if no other process is housekeeping right now. */
  const locked = <T>(fn: (client: pg.PoolClient) => Promise<T>) =>
    withTransaction(pool, async (client) => {
      const { rows } = await client.query<{ locked: boolean }>({
        name: "runtime_housekeeping_lock",
        text: "select pg_try_advisory_xact_lock(hashtextextended('agent-ledger housekeeping', 0)) as locked",
      });
      return rows[0]?.locked ? { value: await fn(client) } : undefined;
    });

  return async function pass(): Promise<HousekeepingResult> {
    const result: HousekeepingResult = { ran: true, events: 0, rateLimits: 0, partitions: 0 };
    for (let i = 0; i < maxBatches; i++) {
      const done = await locked((c) =>
        purgeExpiredEvents(c, { after: cursor, graceMs, limit: batch }),
      );
      if (!done) return { ...result, ran: false };
      cursor = done.value.cursor;
      result.events += done.value.deleted;
      if (done.value.examined < batch) break;
    }
    for (let i = 0; i < maxBatches; i++) {
      const done = await locked((c) => purgeIdleRateLimits(c, batch));
      if (!done) return { ...result, ran: false };
      result.rateLimits += done.value;
      if (done.value < batch) break;
    }
    const made = await locked((c) => ensureLedgerPartitions(c));
    if (!made) return { ...result, ran: false };
    result.partitions = made.value;
    return result;
  };
}

/** The loop a worker runs: a pass at once and every `intervalMs`; a pass's error is reported. */
export function startHousekeeping(
  pool: pg.Pool,
  intervalMs: number,
  onError: (err: unknown) => void,
  onDone?: (result: HousekeepingResult) => void,
): Periodic {
  const pass = housekeeper(pool);
  return startPeriodic(intervalMs, () => pass().then(onDone, onError));
}
