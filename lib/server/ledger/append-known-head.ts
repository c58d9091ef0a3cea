// A state change and its ledger entries in one autocommit statement, without locking the
// stream's head first: for a writer that knows the head because it wrote it last (a worker
// holding a task's lease appends to that task's stream, and almost nobody else does). The
// head moves only if it is still where the writer thinks; if not, the entries are given seq 0,
// which the table's check refuses, so the whole statement — state change included — rolls back
// and is retried on the head as it is now. (An appender that got there first and is still
// committing makes ours wait on the head's row, then fail the same way, or fail on the unique
// (stream, seq) key.) After three refusals it takes the head's lock like any appender. The
// chain cannot fork and a change cannot commit without its entries.
import type pg from "pg";
import { onRollback, type SqlClient, withTransaction } from "../../../db/client";
import { CommitInDoubtError, isConnectionError } from "../../../db/retry";
import { type AttemptStartData, withAttemptStart } from "../../domain/attempt-start";
import { faultPoint } from "../fault-points";
import {
  type AppendedEntry,
  appendLedger,
  databaseNow,
  entryColumns,
  type NewLedgerEntry,
  prepareEntries,
} from "./append-ledger";

export type StreamHead = { seq: number; hash: string; at: Date };

/**
 * What a writer knows of one stream's head; `current` is undefined until it has read or written
 * it. An attempt's ref also holds its `start` until an entry carrying it is written: the claim
 * writes no attempt.started, the attempt's first entry (whatever its kind) says it started.
 */
export type HeadRef = {
  stream: string;
  current?: StreamHead;
  start?: AttemptStartData;
  /** The id of the entry that carried the start, once written (the attempt span names it). */
  startEntryId?: number;
};

/** The head after entries appended to `ref`'s stream by any path. */
export function noteAppended(ref: HeadRef, appended: readonly AppendedEntry[]): void {
  const last = appended.filter((e) => e.stream === ref.stream).at(-1);
  if (last) ref.current = { seq: last.seq, hash: last.hash, at: last.at };
}

/**
 * The one place an attempt's start joins its first entry: takes the start off `ref` (so a
 * parallel append of the same attempt does not carry it twice) and folds it into the first of
 * `entries`; `giveBack` returns it when those entries were not written.
 */
export function takeStart(
  ref: HeadRef,
  entries: readonly NewLedgerEntry[],
): { entries: readonly NewLedgerEntry[]; giveBack: () => void; carries: boolean } {
  const start = ref.start;
  const [first, ...rest] = entries;
  if (!start || !first) return { entries, giveBack: () => {}, carries: false };
  ref.start = undefined;
  return {
    carries: true,
    entries: [{ ...first, data: withAttemptStart(first.data, start) }, ...rest],
    giveBack: () => {
      ref.start ??= start;
    },
  };
}

/**
 * An attempt's entries on its stream inside the caller's transaction (the locked path), its
 * start folded into the first while not written yet; given back if the transaction rolls back.
 */
export async function appendThrough(
  client: SqlClient,
  ref: HeadRef,
  entries: NewLedgerEntry | readonly NewLedgerEntry[],
): Promise<AppendedEntry[]> {
  const taken = takeStart(ref, Array.isArray(entries) ? entries : [entries as NewLedgerEntry]);
  onRollback(client, taken.giveBack);
  try {
    const appended = await appendLedger(client, ref.stream, taken.entries);
    if (taken.carries) ref.startEntryId = appended[0]?.id;
    return appended;
  } catch (err) {
    taken.giveBack();
    throw err;
  }
}

export type KnownHeadStatement = {
  /** Prepared-statement name; the text is fixed for a name. */
  name: string;
  /**
   * Common table expressions the entries go with, e.g. `done as (update tasks … returning 1)`,
   * using $1…$n for `values`. Data-modifying ones run whether or not entries are written.
   */
  ctes: string;
  values: unknown[];
  /** SQL condition over the CTEs: the entries are written (and the head moved) when it holds. */
  when: string;
  /** The final select list; `(select count(*) from appended)` is the entries written. */
  select: string;
};

/**
 * One statement for the changes of many streams (a batch of tasks): `ctes` must define
 * `acted(stream)`, the streams whose change happened; only their entries are written.
 */
export type KnownHeadsStatement = Omit<KnownHeadStatement, "when">;

const OPTIMISTIC_TRIES = 3;

/**
 * Runs `statement` with `entries` appended to `ref`'s stream when its `when` holds, and moves
 * `ref` to the new head. A lost connection throws CommitInDoubtError: one statement may have
 * committed.
 */
export async function appendOnKnownHead<R extends Record<string, unknown>>(
  pool: pg.Pool,
  ref: HeadRef,
  entries: readonly NewLedgerEntry[],
  statement: KnownHeadStatement,
): Promise<{ row: R; appended: boolean }> {
  const n = statement.values.length;
  for (let attempt = 0; attempt < OPTIMISTIC_TRIES; attempt++) {
    try {
      return await knownHeadsOnce<R>(pool, [{ ref, entries }], single(statement, n), false);
    } catch (err) {
      ref.current = undefined;
      if (isConnectionError(err)) throw new CommitInDoubtError(err);
      // Somebody else appended to the stream since we last saw its head: read it and go again.
      if (!headMoved(err)) throw err;
    }
  }
  // Busy stream (many writers at once): take the head's lock, so this try cannot be refused.
  return withTransaction(pool, (client) =>
    knownHeadsOnce<R>(client, [{ ref, entries }], single(statement, n), true),
  );
}

function single(statement: KnownHeadStatement, n: number): KnownHeadsStatement {
  return {
    name: statement.name,
    ctes: `${statement.ctes}, acted as (select unnest($${n + 1}::text[]) as stream where (${statement.when}))`,
    values: statement.values,
    select: statement.select,
  };
}

export type KnownHeadsItem = { ref: HeadRef; entries: readonly NewLedgerEntry[] };

/**
 * The batch form: one try, no retry. A head that moved refuses the whole statement (nothing is
 * written; the error is a HeadMovedError); the caller then goes through the items one by one.
 * Each item's stream appears once.
 */
export async function appendOnKnownHeads<R extends Record<string, unknown>>(
  pool: pg.Pool,
  items: readonly KnownHeadsItem[],
  statement: KnownHeadsStatement,
): Promise<{ row: R; appendedStreams: Set<string> }> {
  const streams = new Set(items.map((i) => i.ref.stream));
  // Two items on one stream (parallel calls in one attempt) would chain onto the same head.
  if (streams.size !== items.length) throw new Error("a batch holds one stream twice");
  try {
    const { row, appendedStreams } = await knownHeadsOnce<R>(pool, items, statement, false);
    return { row, appendedStreams };
  } catch (err) {
    for (const item of items) item.ref.current = undefined;
    if (isConnectionError(err)) throw new CommitInDoubtError(err);
    if (headMoved(err)) throw new HeadMovedError(err);
    throw err;
  }
}

export class HeadMovedError extends Error {
  override name = "HeadMovedError";
  constructor(cause: unknown) {
    super("a stream head moved since it was read", { cause });
  }
}

type Appended = { appended_streams: string[]; first_ids: Record<string, string> | null };

/**
 * The statement itself, on the heads the refs hold (read when unknown; read under lock when
 * `lock`, then it cannot be refused). Moves each ref whose entries were written.
 */
async function knownHeadsOnce<R extends Record<string, unknown>>(
  db: SqlClient,
  items: readonly KnownHeadsItem[],
  statement: KnownHeadsStatement,
  lock: boolean,
): Promise<{ row: R; appended: boolean; appendedStreams: Set<string> }> {
  const heads = await Promise.all(
    items.map(async (item) =>
      lock || !item.ref.current ? readHead(db, item.ref.stream, lock) : item.ref.current,
    ),
  );
  const at = databaseNow(new Date(Math.max(...heads.map((h) => h.at.getTime()))));
  const atIso = at.toISOString();
  const cols = entryColumns();
  const moved = {
    stream: [] as string[],
    seq: [] as number[],
    hash: [] as string[],
    prevSeq: [] as number[],
    prevHash: [] as string[],
  };
  const next = new Map<string, StreamHead>();
  let row: R & Appended;
  const taken = items.map((item) => takeStart(item.ref, item.entries));
  // Under lock the statement runs in the caller's transaction: its COMMIT decides.
  if (lock) for (const t of taken) onRollback(db, t.giveBack);
  try {
    items.forEach((item, i) => {
      const head = heads[i] as StreamHead;
      const entries = taken[i]?.entries ?? item.entries;
      const prepared = prepareEntries(entries.map((e) => ({ ...e, stream: item.ref.stream })));
      let prev = head.hash;
      let seq = head.seq;
      for (const e of prepared) {
        seq += 1;
        const hash = cols.push(e, seq, prev, atIso);
        prev = hash;
      }
      moved.stream.push(item.ref.stream);
      moved.seq.push(seq);
      moved.hash.push(prev);
      moved.prevSeq.push(head.seq);
      moved.prevHash.push(head.hash);
      next.set(item.ref.stream, { seq, hash: prev, at });
    });

    const n = statement.values.length;
    const p = (i: number) => `$${n + i}`;
    // $n+1, the heads' streams, is also what the single form's `acted` names.
    const text = `with ${statement.ctes},
    head_moved as (
      update ledger_streams h set head_seq = m.seq, head_hash = m.hash, updated_at = ${p(6)}::timestamptz
      from unnest(${p(1)}::text[], ${p(2)}::bigint[], ${p(3)}::text[], ${p(4)}::bigint[], ${p(5)}::text[])
        as m(stream, seq, hash, prev_seq, prev_hash)
      where h.stream = m.stream and h.head_seq = m.prev_seq and h.head_hash = m.prev_hash
        and m.stream in (select stream from acted)
      returning h.stream, h.month
    ), appended as (
      -- The heads' rows are locked before any entry is inserted (the join runs first), in the
      -- order every other appender takes: state rows, then the heads, then the entries. An
      -- entry whose head was not where we thought gets seq 0, which the table refuses (in the
      -- unarchivable partition: its head's month is not known then, and the row never stays).
      insert into ledger_entries (stream, seq, at, kind, actor, task_id, key, data, hash, month)
      select s.stream, case when hm.stream is not null then s.seq else 0 end,
             ${p(6)}::timestamptz, s.kind, s.actor, s.task_id, s.key, s.data, s.hash,
             coalesce(hm.month, date '1970-01-01')
      from unnest(${p(7)}::text[], ${p(8)}::bigint[], ${p(9)}::text[], ${p(10)}::text[], ${p(11)}::uuid[], ${p(12)}::text[], ${p(13)}::jsonb[], ${p(14)}::text[])
        as s(stream, seq, kind, actor, task_id, key, data, hash)
        left join head_moved hm on hm.stream = s.stream
      where s.stream in (select stream from acted)
      -- Ids are drawn in this order: within a stream they rise with seq, whatever the join did.
      order by s.stream, s.seq
      returning stream, seq, id
    )
    select ${statement.select}, array(select distinct stream from appended) as appended_streams,
      -- Each stream's first entry written: an attempt's start rides on it.
      (select jsonb_object_agg(f.stream, f.id) from (select distinct on (stream) stream, id
         from appended order by stream, seq) f) as first_ids`;
    faultPoint("ledger.append");
    const values = [
      ...statement.values,
      moved.stream,
      moved.seq,
      moved.hash,
      moved.prevSeq,
      moved.prevHash,
      atIso,
      ...cols.arrays(),
    ];
    const { rows } = await db.query<R & Appended>({
      name: statement.name,
      text,
      values,
    });
    row = rows[0] as R & Appended;
  } catch (err) {
    for (const t of taken) t.giveBack();
    throw err;
  }
  const appendedStreams = new Set(row.appended_streams);
  items.forEach((item, i) => {
    if (!appendedStreams.has(item.ref.stream)) taken[i]?.giveBack();
    else if (taken[i]?.carries) item.ref.startEntryId = Number(row.first_ids?.[item.ref.stream]);
    item.ref.current = appendedStreams.has(item.ref.stream)
      ? next.get(item.ref.stream)
      : (heads[i] as StreamHead);
  });
  return { row, appended: appendedStreams.size > 0, appendedStreams };
}

// A unique violation names the partition's own index (ledger_entries_y2026m12_stream_seq_month_key),
// not the parent's constraint; a check violation keeps the parent's name.
const STREAM_SEQ_KEY = /^ledger_entries(_[a-z0-9]+)?_stream_seq(_month)?_key$/;

function headMoved(err: unknown): boolean {
  const { code, constraint } = err as { code?: string; constraint?: string };
  return (
    (code === "23514" && constraint === "ledger_entries_seq_check") ||
    (code === "23505" && constraint !== undefined && STREAM_SEQ_KEY.test(constraint))
  );
}

async function readHead(db: SqlClient, stream: string, lock: boolean): Promise<StreamHead> {
  const { rows } = await db.query<{ head_seq: string; head_hash: string; updated_at: Date }>({
    name: lock ? "ledger_lock_head" : "ledger_read_head",
    text: `select head_seq, head_hash, updated_at from ledger_streams where stream = $1${lock ? " for update" : ""}`,
    values: [stream],
  });
  const row = rows[0];
  // Streams are created by their first append (a task's at enqueue); this path never creates one.
  if (!row) throw new Error(`ledger stream ${stream} does not exist`);
  return { seq: Number(row.head_seq), hash: row.head_hash, at: row.updated_at };
}
