// appendLedger: the one way entries enter the ledger. It locks the stream's head row, so
// concurrent appenders to one stream queue up and the chain never forks; entries and the new
// head are written in the caller's transaction, beside the state change they record.
import type { SqlClient } from "../../../db/client";
import { entryHash, GENESIS_HASH } from "../../domain/hash";
import { type JsonValue, toJsonValue } from "../../domain/json";
import { redact } from "../../domain/redact";
import { faultPoint } from "../fault-points";

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

export const SYSTEM_STREAM = "system";

/**
 * Locks the head of `stream` (creating it at seq 0 if new) and returns it with the database
 * clock, truncated to the millisecond precision entries store. A brand-new stream created
 * concurrently by another transaction is not visible to this statement's snapshot, so an
 * empty answer is retried.
 */
async function lockStreamHead(
  client: SqlClient,
  stream: string,
): Promise<{ headSeq: number; headHash: string; now: Date }> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const { rows } = await client.query<{ head_seq: number; head_hash: string; now: Date }>({
      // Named: prepared once per connection, so the hot path skips parsing and planning.
      name: "ledger_lock_head",
      text: `with created as (
         insert into ledger_streams (stream, head_seq, head_hash) values ($1, 0, $2)
         on conflict (stream) do nothing
         returning head_seq, head_hash
       ), locked as (
         select head_seq, head_hash from ledger_streams where stream = $1 for update
       )
       select head_seq, head_hash, date_trunc('milliseconds', clock_timestamp()) as now from created
       union all
       select head_seq, head_hash, date_trunc('milliseconds', clock_timestamp()) from locked`,
      values: [stream, GENESIS_HASH],
    });
    const row = rows[0];
    if (row) return { headSeq: Number(row.head_seq), headHash: row.head_hash, now: row.now };
  }
  throw new Error(`could not lock ledger stream ${stream}`);
}

export async function appendLedger(
  client: SqlClient,
  stream: string,
  input: NewLedgerEntry | readonly NewLedgerEntry[],
): Promise<AppendedEntry[]> {
  const entries = Array.isArray(input) ? input : [input as NewLedgerEntry];
  if (entries.length === 0) return [];
  if (!STREAM_PATTERN.test(stream)) throw new LedgerInputError(`bad ledger stream name: ${stream}`);
  const prepared = entries.map((e, i) => {
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

  const head = await lockStreamHead(client, stream);
  faultPoint("ledger.append");
  const at = head.now.toISOString();
  let prevHash = head.headHash;
  let seq = head.headSeq;
  const cols = {
    seq: [] as number[],
    kind: [] as string[],
    actor: [] as string[],
    taskId: [] as (string | null)[],
    key: [] as (string | null)[],
    data: [] as string[],
    prevHash: [] as string[],
    hash: [] as string[],
  };
  for (const e of prepared) {
    seq += 1;
    const hash = entryHash(prevHash, {
      stream,
      seq,
      at,
      kind: e.kind,
      actor: e.actor,
      taskId: e.taskId,
      key: e.key,
      data: e.data,
    });
    cols.seq.push(seq);
    cols.kind.push(e.kind);
    cols.actor.push(e.actor);
    cols.taskId.push(e.taskId);
    cols.key.push(e.key);
    cols.data.push(JSON.stringify(e.data));
    cols.prevHash.push(prevHash);
    cols.hash.push(hash);
    prevHash = hash;
  }

  const { rows } = await client.query<{ id: number; seq: number }>({
    name: "ledger_append_entries",
    text: `with inserted as (
       insert into ledger_entries (stream, seq, at, kind, actor, task_id, key, data, prev_hash, hash)
       select $1, s.seq, $2::timestamptz, s.kind, s.actor, s.task_id, s.key, s.data, s.prev_hash, s.hash
       from unnest($3::bigint[], $4::text[], $5::text[], $6::uuid[], $7::text[], $8::jsonb[], $9::text[], $10::text[])
         as s(seq, kind, actor, task_id, key, data, prev_hash, hash)
       returning id, seq
     ), head as (
       update ledger_streams set head_seq = $11, head_hash = $12, updated_at = $2::timestamptz
       where stream = $1
       returning 1
     )
     select id, seq from inserted order by seq`,
    values: [
      stream,
      at,
      cols.seq,
      cols.kind,
      cols.actor,
      cols.taskId,
      cols.key,
      cols.data,
      cols.prevHash,
      cols.hash,
      seq,
      prevHash,
    ],
  });
  return rows.map((r, i) => ({
    id: Number(r.id),
    stream,
    seq: Number(r.seq),
    at: head.now,
    kind: prepared[i]?.kind ?? "",
    hash: cols.hash[i] ?? "",
  }));
}
