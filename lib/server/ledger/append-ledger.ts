// appendLedger: the one way entries enter the ledger. It locks the stream's head row, so
// concurrent appenders to one stream queue up and the chain never forks; entries and the new
// head are written in the caller's transaction, beside the state change they record.
import type { SqlClient } from "../../../db/client";
import { entryHash, GENESIS_HASH } from "../../domain/hash";
import { type JsonValue, toJsonValue } from "../../domain/json";
import { redact } from "../../domain/redact";
import { faultPoint } from "../fault-points";
import { noteLedgerEntries } from "../tracing";

export type NewLedgerEntry = {
  kind: string;
  actor: string;
  taskId?: string | null;
  key?: string | null;
  data?: unknown;
  /** Dotted paths inside `data` to redact before hashing and storing. */
  sensitive?: readonly string[];
};

export type AppendedEntry = {
  id: number;
  stream: string;
  seq: number;
  at: Date;
  kind: string;
  hash: string;
};

const STREAM_PATTERN = /^[a-z][a-z0-9_-]*(:[A-Za-z0-9_.:-]{1,200})?$/;
const KIND_PATTERN = /^[a-z][a-z_]*(\.[a-z][a-z_]*)*$/;
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class LedgerInputError extends Error {
  override name = "LedgerInputError";
}

export function taskStream(taskId: string): string {
  return `task:${taskId}`;
}

/** A bulk action's own stream: requested, confirmed, each member's outcome, its end. */
export function bulkStream(bulkId: string): string {
  return `bulk:${bulkId}`;
}

export const SYSTEM_STREAM = "system";

/** A locked head, and the month whose partition holds its stream's entries (migration 0055). */
type LockedHead = { seq: number; hash: string; month: string };

/**
 * Locks the heads of `streams` (creating new ones at seq 0), in stream order so two appenders
 * never wait on each other in a cycle, and returns them with the database clock truncated to
 * the millisecond precision entries store. A stream created concurrently by another
 * transaction is not visible to this statement's snapshot; it is retried.
 */
async function lockStreamHeads(
  client: SqlClient,
  streams: readonly string[],
): Promise<{ heads: Map<string, LockedHead>; now: Date }> {
  const heads = new Map<string, LockedHead>();
  let now: Date | undefined;
  let latest = new Date(0);
  let missing = [...streams];
  for (let attempt = 0; attempt < 5 && missing.length > 0; attempt++) {
    const { rows } = await client.query<{
      stream: string;
      head_seq: number;
      head_hash: string;
      month: string;
      now: Date;
      /** When the head last moved: its last entry's time (a new head's: null). */
      last: Date | null;
    }>({
      // Named: prepared once per connection, so the hot path skips parsing and planning.
      name: "ledger_lock_heads",
      text: `with created as (
               insert into ledger_streams (stream, head_seq, head_hash)
               select s, 0, $2 from unnest($1::text[]) as s
               on conflict (stream) do nothing
               returning stream, head_seq, head_hash, month
             ), locked as (
               select stream, head_seq, head_hash, month, updated_at from ledger_streams
               where stream = any($1::text[]) order by stream for update
             )
             select stream, head_seq, head_hash, month::text, date_trunc('milliseconds', clock_timestamp()) as now,
                    null::timestamptz as last from created
             union all
             select stream, head_seq, head_hash, month::text, date_trunc('milliseconds', clock_timestamp()),
                    updated_at from locked`,
      values: [missing, GENESIS_HASH],
    });
    for (const r of rows) {
      heads.set(r.stream, { seq: Number(r.head_seq), hash: r.head_hash, month: r.month });
      now ??= r.now;
      if (r.last && r.last > latest) latest = r.last;
    }
    missing = missing.filter((st) => !heads.has(st));
  }
  if (missing.length > 0 || !now)
    throw new Error(`could not lock ledger streams ${missing.join(", ")}`);
  noteDatabaseClock(now);
  // Never before a head's last entry (an append against a known head dates its entries by this
  // process's reckoning of the database clock, which may run ahead of it): within a stream,
  // time rises with seq, so the ledger's time order and each stream's order agree.
  return { heads, now: latest > now ? latest : now };
}

export type NewStreamEntry = NewLedgerEntry & { stream: string };

// The database's clock as this process last saw it, for entries whose time is chosen here
// (appends against a known head, append-known-head.ts): off by at most one round trip.
let clockOffsetMs = 0;

function noteDatabaseClock(now: Date): void {
  clockOffsetMs = now.getTime() - Date.now();
}

/** The database's time now, to the millisecond entries store, never before `notBefore`. */
export function databaseNow(notBefore?: Date): Date {
  const t = Date.now() + clockOffsetMs;
  return new Date(Math.max(t, notBefore?.getTime() ?? 0));
}

export type PreparedEntry = Omit<NewStreamEntry, "data" | "taskId" | "key"> & {
  data: JsonValue;
  taskId: string | null;
  key: string | null;
};

/** Checks every entry and redacts its data: what is hashed is exactly what is stored. */
export function prepareEntries(entries: readonly NewStreamEntry[]): PreparedEntry[] {
  return entries.map((e, i) => {
    if (!STREAM_PATTERN.test(e.stream))
      throw new LedgerInputError(`bad ledger stream name: ${e.stream}`);
    if (!KIND_PATTERN.test(e.kind)) throw new LedgerInputError(`bad ledger entry kind: ${e.kind}`);
    if (e.actor.trim() === "") throw new LedgerInputError("a ledger entry needs an actor");
    const data: JsonValue = redact(
      toJsonValue(e.data ?? {}, `entry[${i}].data`),
      e.sensitive ?? [],
    );
    if (e.taskId != null && !UUID_PATTERN.test(e.taskId)) {
      throw new LedgerInputError(`bad task id: ${e.taskId}`);
    }
    // PostgreSQL returns uuids in lower case; hash what will be read back.
    return { ...e, data, taskId: e.taskId?.toLowerCase() ?? null, key: e.key ?? null };
  });
}

/** The chain hash of a prepared entry at `seq` and time `at` (ISO) after `prevHash`. */
export function hashEntry(prevHash: string, e: PreparedEntry, seq: number, at: string): string {
  return entryHash(prevHash, {
    stream: e.stream,
    seq,
    at,
    kind: e.kind,
    actor: e.actor,
    taskId: e.taskId,
    key: e.key,
    data: e.data,
  });
}

/**
 * The columns an append's `unnest` takes, filled entry by entry: `push` chains a prepared
 * entry at `seq` onto `prevHash` and returns its hash.
 */
export function entryColumns() {
  const cols = {
    stream: [] as string[],
    seq: [] as number[],
    kind: [] as string[],
    actor: [] as string[],
    taskId: [] as (string | null)[],
    key: [] as (string | null)[],
    data: [] as string[],
    hash: [] as string[],
  };
  const push = (e: PreparedEntry, seq: number, prevHash: string, at: string): string => {
    const hash = hashEntry(prevHash, e, seq, at);
    cols.stream.push(e.stream);
    cols.seq.push(seq);
    cols.kind.push(e.kind);
    cols.actor.push(e.actor);
    cols.taskId.push(e.taskId);
    cols.key.push(e.key);
    cols.data.push(JSON.stringify(e.data));
    cols.hash.push(hash);
    return hash;
  };
  /** The eight arrays in the order every append's `unnest` lists its columns. */
  const arrays = () => [
    cols.stream,
    cols.seq,
    cols.kind,
    cols.actor,
    cols.taskId,
    cols.key,
    cols.data,
    cols.hash,
  ];
  return Object.assign(cols, { push, arrays });
}

/** Appends entries to one stream. */
export async function appendLedger(
  client: SqlClient,
  stream: string,
  input: NewLedgerEntry | readonly NewLedgerEntry[],
): Promise<AppendedEntry[]> {
  const entries = Array.isArray(input) ? input : [input as NewLedgerEntry];
  return appendLedgerMany(
    client,
    entries.map((e) => ({ ...e, stream })),
  );
}

/**
 * Appends entries to any number of streams in three statements: lock the heads, then insert
 * every entry and move every head. Entries keep their order within each stream.
 */
export async function appendLedgerMany(
  client: SqlClient,
  entries: readonly NewStreamEntry[],
): Promise<AppendedEntry[]> {
  if (entries.length === 0) return [];
  const prepared = prepareEntries(entries);
  const streams = [...new Set(prepared.map((e) => e.stream))].sort();
  const { heads, now } = await lockStreamHeads(client, streams);
  faultPoint("ledger.append");
  const at = now.toISOString();
  const cols = entryColumns();
  const months: string[] = [];
  for (const e of prepared) {
    const head = heads.get(e.stream) as LockedHead;
    const seq = head.seq + 1;
    const hash = cols.push(e, seq, head.hash, at);
    months.push(head.month);
    heads.set(e.stream, { seq, hash, month: head.month });
  }
  const headStreams = [...heads.keys()];

  const { rows } = await client.query<{ id: number; stream: string; seq: number }>({
    name: "ledger_append_entries",
    text: `with inserted as (
       insert into ledger_entries (stream, seq, at, kind, actor, task_id, key, data, hash, month)
       select s.stream, s.seq, $1::timestamptz, s.kind, s.actor, s.task_id, s.key, s.data, s.hash, s.month
       from unnest($2::text[], $3::bigint[], $4::text[], $5::text[], $6::uuid[], $7::text[], $8::jsonb[], $9::text[], $13::date[])
         as s(stream, seq, kind, actor, task_id, key, data, hash, month)
       returning id, stream, seq
     ), head as (
       update ledger_streams h set head_seq = n.seq, head_hash = n.hash, updated_at = $1::timestamptz
       from unnest($10::text[], $11::bigint[], $12::text[]) as n(stream, seq, hash)
       where h.stream = n.stream
       returning 1
     )
     select id, stream, seq from inserted`,
    values: [
      at,
      ...cols.arrays(),
      headStreams,
      headStreams.map((st) => heads.get(st)?.seq ?? 0),
      headStreams.map((st) => heads.get(st)?.hash ?? GENESIS_HASH),
      months,
    ],
  });
  const ids = new Map(rows.map((r) => [`${r.stream}#${Number(r.seq)}`, Number(r.id)]));
  const appended = prepared.map((e, i) => ({
    id: ids.get(`${e.stream}#${cols.seq[i]}`) ?? 0,
    stream: e.stream,
    seq: cols.seq[i] ?? 0,
    at: now,
    kind: e.kind,
    hash: cols.hash[i] ?? "",
  }));
  // A review action's span names the entries it wrote (commands/review-span.ts).
  noteLedgerEntries(appended);
  return appended;
}
