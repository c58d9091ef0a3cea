// The periodic chain verify behind the /ledger badge. Every worker runs the loop; an advisory
// lock held for the pass's transaction, taken without waiting, makes one of them do each pass. A pass is incremental
// (the entries appended since the last one: each must chain onto its predecessor and hash to
// its stored hash); once a day it is a pass from the latest signed checkpoint (verifyLedger
// from: "checkpoint": every stream from the head the checkpoint recorded, heads, checkpoints,
// streams gone whole), which stays cheap at millions of entries; and once a week, or after a
// failure, or with no key to check a checkpoint's signature, it is full (every chain from its
// start), the only pass that re-reads what a checkpoint vouches for. The outcome is upserted
// into the one ledger_verifications row.
import type { KeyObject } from "node:crypto";
import type pg from "pg";
import { isConnectionError } from "../db/retry";
import type { JsonValue } from "../lib/domain/json";
import { errorFields, logger } from "../lib/log";
import { prevHashSql } from "../lib/server/ledger/prev-hash";
import {
  type EntryRow,
  type LedgerProblem,
  rowHash,
  verifyLedger,
} from "../lib/server/ledger/verify-ledger";
import { type Periodic, startPeriodic } from "./runtime/periodic";

/** Two-int advisory lock key: ("ledg", 1). Any other lock picks other numbers. */
export const VERIFY_LOCK = [0x6c656467, 1] as const;
/**
 * An entry is verified incrementally only once it is this old: ids are taken at insert, so a
 * transaction still open may commit a lower id after a higher one was seen. Anything a longer
 * transaction slips past is read by the next full pass.
 */
const SETTLE_MS = 30_000;
const BATCH = 5_000;
/** One pass reads at most this many new entries; the next pass goes on from there. */
const MAX_PER_PASS = 500_000;
/** How often a pass checks every stream (from the latest signed checkpoint, or in full). */
export const FULL_EVERY_MS = 24 * 3_600_000;
/** How often that pass goes back to every chain's start even when a signed checkpoint is there. */
export const FROM_START_EVERY_MS = 7 * 24 * 3_600_000;
/** Problems kept for the badge: the first few say what failed; the CLI lists them all. */
const KEEP_PROBLEMS = 20;

export type VerifyPassOptions = {
  publicKey?: KeyObject;
  maxCheckpointAgeHours?: number;
  /** Run a full pass even if the last full one is recent. */
  forceFull?: boolean;
  /** Run the daily pass (from the latest signed checkpoint, or full) even if the last one is recent. */
  forceDaily?: boolean;
  /** How old an entry must be before an incremental pass reads it (SETTLE_MS). */
  settleMs?: number;
};

export type VerifyPassOutcome = {
  mode: "full" | "checkpoint" | "incremental";
  ok: boolean;
  throughId: number;
  entriesChecked: number;
  problems: LedgerProblem[];
};

type StateRow = {
  through_id: number;
  full_at: Date | null;
  checkpoint_at: Date | null;
  ok: boolean;
};

/** The newest entry old enough to have settled: where a full pass may say it verified through. */
async function settledHead(
  client: pg.ClientBase,
  settleMs: number,
): Promise<{ id: number; at: Date } | null> {
  // clock_timestamp, not now(): inside a test's transaction now() is when it began.
  const { rows } = await client.query<{ id: number; at: Date }>(
    `select id, at from ledger_entries where at <= clock_timestamp() - $1 * interval '1 millisecond'
      order by at desc, id desc limit 1`,
    [settleMs],
  );
  return rows[0] ?? null;
}

type IncrementalRow = EntryRow & { chains_onto: string | null; settled: boolean };

async function incremental(
  client: pg.ClientBase,
  fromId: number,
  settleMs: number,
): Promise<{
  through: { id: number; at: Date } | null;
  checked: number;
  problems: LedgerProblem[];
}> {
  const problems: LedgerProblem[] = [];
  let after = fromId;
  let through: { id: number; at: Date } | null = null;
  let checked = 0;
  while (checked < MAX_PER_PASS) {
    // The hash each chains onto, from its predecessor by (stream, seq): one probe per entry.
    const { rows } = await client.query<IncrementalRow>(
      `select e.id, e.stream, e.seq, e.at, e.kind, e.actor, e.task_id, e.key, e.data, e.hash,
              ${prevHashSql("e")} as chains_onto,
              e.at <= clock_timestamp() - $3 * interval '1 millisecond' as settled
         from ledger_entries e
        where e.id > $1 order by e.id limit $2`,
      [after, BATCH, settleMs],
    );
    let stop = rows.length < BATCH;
    for (const row of rows) {
      if (!row.settled) {
        stop = true;
        break;
      }
      checked += 1;
      const seq = Number(row.seq);
      const at = { stream: row.stream, seq, entryId: Number(row.id) };
      const expected = row.chains_onto;
      if (expected === null) {
        problems.push({
          ...at,
          problem: "seq_gap",
          message: `${row.stream} seq ${seq} has no entry before it (seq ${seq - 1} is missing)`,
        });
      } else if (rowHash(expected, row) !== row.hash) {
        problems.push({
          ...at,
          problem: "hash_mismatch",
          message: `${row.stream} seq ${seq} (${row.kind}) was altered, or the entry before it was: its stored hash does not match its content chained onto the hash before it`,
        });
      }
      after = Number(row.id);
      through = { id: after, at: row.at };
    }
    if (stop) break;
  }
  return { through, checked, problems };
}

/**
 * One pass, if no other process is running one (null then). Records its outcome: a failure
 * stays recorded (ok false, with what failed) until a full pass finds the ledger whole again.
 */
export async function runLedgerVerifyPass(
  pool: pg.Pool,
  opts: VerifyPassOptions = {},
): Promise<VerifyPassOutcome | null> {
  const client = await pool.connect();
  try {
    // One snapshot for the whole pass: a full pass reads the entries in batches and the stream
    // heads after them, and in two snapshots an append in between (the demo's first seconds,
    // any busy ledger) reads as entries missing from an intact chain. The snapshot is held for
    // the pass (a full one over 10M entries: minutes, once a day).
    await client.query("begin isolation level repeatable read");
    try {
      const outcome = await verifyPassOn(client, opts);
      await client.query("commit");
      return outcome;
    } catch (err) {
      await client.query("rollback").catch(() => undefined);
      throw err;
    }
  } finally {
    client.release();
  }
}

/** The pass on one connection (a test's superuser transaction sees its own tampering). */
export async function verifyPassOn(
  client: pg.ClientBase,
  opts: VerifyPassOptions = {},
): Promise<VerifyPassOutcome | null> {
  const settleMs = opts.settleMs ?? SETTLE_MS;
  // Transaction-scoped: it ends with the pass's transaction however that ends. A session lock
  // released in a `finally` was left held on the connection when a statement of the pass had
  // failed (the unlock then ran in the aborted transaction and failed too).
  const { rows: lock } = await client.query<{ locked: boolean }>(
    "select pg_try_advisory_xact_lock($1, $2) as locked",
    [...VERIFY_LOCK],
  );
  if (!lock[0]?.locked) return null;
  const { rows: stateRows } = await client.query<StateRow>(
    "select through_id, full_at, checkpoint_at, ok from ledger_verifications where name = 'chain'",
  );
  const state = stateRows[0];
  const age = (at: Date | null | undefined) => (at ? Date.now() - at.getTime() : Infinity);
  const full =
    opts.forceFull === true ||
    !state?.ok ||
    age(state.full_at) >= FROM_START_EVERY_MS ||
    opts.publicKey === undefined;
  const daily =
    opts.forceFull === true ||
    opts.forceDaily === true ||
    !state ||
    Math.min(age(state.full_at), age(state.checkpoint_at)) >= FULL_EVERY_MS;

  let outcome: VerifyPassOutcome;
  let throughAt: Date | null;
  if (daily || !state) {
    const head = await settledHead(client, settleMs);
    // From the checkpoint only while the record is clean: a failure is cleared by a pass that
    // re-reads everything, never by one that trusts what came before the checkpoint.
    const report = await verifyLedger(client, {
      publicKey: opts.publicKey,
      maxCheckpointAgeHours: opts.maxCheckpointAgeHours,
      from: full ? "start" : "checkpoint",
    });
    outcome = {
      mode: report.mode,
      ok: report.ok,
      throughId: head?.id ?? 0,
      entriesChecked: report.entries,
      problems: report.problems,
    };
    throughAt = head?.at ?? null;
  } else {
    const run = await incremental(client, state.through_id, settleMs);
    outcome = {
      mode: "incremental",
      ok: run.problems.length === 0,
      throughId: run.through?.id ?? state.through_id,
      entriesChecked: run.checked,
      problems: run.problems,
    };
    throughAt = run.through?.at ?? null;
  }
  const problems = outcome.problems.slice(0, KEEP_PROBLEMS) as unknown as JsonValue;
  await client.query(
    `insert into ledger_verifications
       (name, through_id, through_at, verified_at, mode, full_at, checkpoint_at, ok, failed_at,
        problems, entries_checked)
     values ('chain', $1, $2, now(), $3, case when $3 = 'full' then now() end,
             case when $3 = 'checkpoint' then now() end, $4,
             case when $4 then null else now() end, $5, $6)
     on conflict (name) do update set
       through_id = excluded.through_id,
       through_at = coalesce(excluded.through_at, ledger_verifications.through_at),
       verified_at = excluded.verified_at,
       mode = excluded.mode,
       full_at = coalesce(excluded.full_at, ledger_verifications.full_at),
       checkpoint_at = coalesce(excluded.checkpoint_at, ledger_verifications.checkpoint_at),
       -- Only a full pass clears a failure: the others did not re-read what was broken.
       ok = case when excluded.mode = 'full' then excluded.ok
                 else excluded.ok and ledger_verifications.ok end,
       failed_at = coalesce(excluded.failed_at,
                            case when excluded.mode = 'full' then null
                                 else ledger_verifications.failed_at end),
       problems = case when not excluded.ok or excluded.mode = 'full' then excluded.problems
                       else ledger_verifications.problems end,
       entries_checked = excluded.entries_checked`,
    [
      outcome.throughId,
      throughAt,
      outcome.mode,
      outcome.ok,
      JSON.stringify(problems),
      outcome.entriesChecked,
    ],
  );
  return outcome;
}

export type LedgerVerifier = Periodic;

/** The loop: a pass every `intervalMs`; passes never overlap within a process. */
export function startLedgerVerifier(
  config: VerifyPassOptions & { pool: pg.Pool; intervalMs: number },
): LedgerVerifier {
  const log = logger("ledger-verify");
  const { pool, intervalMs, ...options } = config;
  const pass = async () => {
    try {
      const outcome = await runLedgerVerifyPass(pool, options);
      if (!outcome) return;
      const fields = {
        mode: outcome.mode,
        throughId: outcome.throughId,
        entries: outcome.entriesChecked,
      };
      if (outcome.ok) log.info(fields, "ledger verified");
      else log.error({ ...fields, problems: outcome.problems.slice(0, 5) }, "ledger chain broken");
    } catch (err) {
      // The next pass starts from the recorded position: nothing is skipped by a failed one.
      if (isConnectionError(err))
        log.debug(errorFields(err), "ledger verify waits for the database");
      else log.warn(errorFields(err), "ledger verify failed to run");
    }
  };
  return startPeriodic(intervalMs, pass);
}
