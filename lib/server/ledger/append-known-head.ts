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
import { type SqlClient, withTransaction } from "../../../db/client";
import { CommitInDoubtError, isConnectionError } from "../../../db/retry";
import { faultPoint } from "../fault-points";
import {
  type AppendedEntry,
  databaseNow,
  hashEntry,
  type NewLedgerEntry,
  prepareEntries,
} from "./append-ledger";

export type StreamHead = { seq: number; hash: string; at: Date };

/** What a writer knows of one stream's head; `current` is undefined until it has read or written it. */
export type HeadRef = { stream: string; current?: StreamHead };

/** The head after entries appended to `ref`'s stream by any path. */
export function noteAppended(ref: HeadRef, appended: readonly AppendedEntry[]): void {
  const last = appended.filter((e) => e.stream === ref.stream).at(-1);
  if (last) ref.current = { seq: last.seq, hash: last.hash, at: last.at };
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
  const prepared = prepareEntries(entries.map((e) => ({ ...e, stream: ref.stream })));
  const n = statement.values.length;
  const p = (i: number) => `$${n + i}`;
  const text = `with ${statement.ctes},
    head_moved as (
      update ledger_streams set head_seq = ${p(1)}, head_hash = ${p(2)}, updated_at = ${p(3)}::timestamptz
      where stream = ${p(4)} and head_seq = ${p(13)} and head_hash = ${p(14)} and (${statement.when})
      returning 1
    ), appended as (
      -- The head's row is locked before any entry is inserted (the subquery runs first), in the
      -- order every other appender takes: state rows, then the head, then the entries.
      insert into ledger_entries (stream, seq, at, kind, actor, task_id, key, data, prev_hash, hash)
      select ${p(4)}, case when exists (select 1 from head_moved) then s.seq else 0 end,
             ${p(3)}::timestamptz, s.kind, s.actor, s.task_id, s.key, s.data, s.prev_hash, s.hash
      from unnest(${p(5)}::bigint[], ${p(6)}::text[], ${p(7)}::text[], ${p(8)}::uuid[], ${p(9)}::text[], ${p(10)}::jsonb[], ${p(11)}::text[], ${p(12)}::text[])
        as s(seq, kind, actor, task_id, key, data, prev_hash, hash)
      where (${statement.when})
      returning 1
    )
    select ${statement.select}, (select count(*) from appended)::int as appended_count`;

  const once = async (db: SqlClient, head: StreamHead) => {
    const at = databaseNow(head.at);
    const atIso = at.toISOString();
    let prev = head.hash;
    const chained = prepared.map((e, i) => {
      const seq = head.seq + 1 + i;
      const hash = hashEntry(prev, e, seq, atIso);
      const row = { e, seq, prev, hash };
      prev = hash;
      return row;
    });
    const last = chained.at(-1);
    faultPoint("ledger.append");
    const { rows } = await db.query<R & { appended_count: number }>({
      name: statement.name,
      text,
      values: [
        ...statement.values,
        last?.seq ?? head.seq,
        last?.hash ?? head.hash,
        atIso,
        ref.stream,
        chained.map((c) => c.seq),
        chained.map((c) => c.e.kind),
        chained.map((c) => c.e.actor),
        chained.map((c) => c.e.taskId),
        chained.map((c) => c.e.key),
        chained.map((c) => JSON.stringify(c.e.data)),
        chained.map((c) => c.prev),
        chained.map((c) => c.hash),
        head.seq,
        head.hash,
      ],
    });
    const row = rows[0] as R & { appended_count: number };
    const appended = row.appended_count > 0;
    return {
      row,
      appended,
      next: appended && last ? { seq: last.seq, hash: last.hash, at } : head,
    };
  };

  for (let attempt = 0; attempt < OPTIMISTIC_TRIES; attempt++) {
    try {
      const head = ref.current ?? (await readHead(pool, ref.stream, false));
      const { row, appended, next } = await once(pool, head);
      ref.current = next;
      return { row, appended };
    } catch (err) {
      ref.current = undefined;
      if (isConnectionError(err)) throw new CommitInDoubtError(err);
      // Somebody else appended to the stream since we last saw its head: read it and go again.
      if (!headMoved(err)) throw err;
    }
  }
  // Busy stream (many writers at once): take the head's lock, so this try cannot be refused.
  const { row, appended, next } = await withTransaction(pool, async (client) =>
    once(client, await readHead(client, ref.stream, true)),
  );
  ref.current = next;
  return { row, appended };
}

function headMoved(err: unknown): boolean {
  const { code, constraint } = err as { code?: string; constraint?: string };
  return (
    (code === "23514" && constraint === "ledger_entries_seq_check") ||
    (code === "23505" && constraint === "ledger_entries_stream_seq_key")
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
