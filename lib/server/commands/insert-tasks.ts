// The enqueue's write, no questions asked (enqueue-tasks.ts asks them first): per 1,000 tasks one
// statement inserts the tasks, their ledger streams, each stream's first entry (task.enqueued,
// built by the ledger's own entry builder and hash-chained from the genesis hash) and the
// wake-up. A task's stream is new (its id is made here), so its head needs no lock: nobody else
// can append to it yet.
import { randomUUID } from "node:crypto";
import type { SqlClient } from "../../../db/client";
import { GENESIS_HASH } from "../../domain/hash";
import { type JsonValue, toJsonValue } from "../../domain/json";
import {
  DEFAULT_PRIORITY,
  PRIORITY_MAX,
  PRIORITY_MIN,
  prioritySchema,
} from "../../domain/priority";
import { entryColumns, prepareEntries, taskStream } from "../ledger/append-ledger";
import type { Unpublished } from "./task-input";

export const TASKS_CHANNEL = "agent_ledger_tasks";

/** Tasks written per statement; a longer batch is written in one transaction, this many at a time. */
export const ENQUEUE_CHUNK = 1000;

export type EnqueueRequest = {
  agent: string;
  input: unknown;
  key?: string;
  runAt?: Date;
  /** Higher is claimed first among runnable tasks (PRIORITY_MIN to PRIORITY_MAX, default 0). */
  priority?: number;
  /** Task-level retry policy override (partial). */
  policy?: Record<string, unknown>;
  /** The task whose run enqueues this one (ctx.spawn); recorded on the task and its first entry. */
  parent?: string;
  /**
   * The agent's concurrency key for this input, when the caller has the agent's code (the
   * library's enqueue given the Agent); otherwise a worker running the agent computes it.
   */
  concurrencyKey?: string;
  /**
   * An agent no worker has published yet: "refuse" it (the default: the API and the CLI, where
   * someone typed its name) or "enqueue" it for the worker that will publish and run it (the
   * library, the seed, the alerts and the bench, whose code names agents it deploys itself).
   * Either way a published schema, when there is one, is checked.
   */
  unpublished?: Unpublished;
  /**
   * The caller's W3C traceparent, already parsed (lib/domain/traceparent.ts): stored on the task
   * so its attempts' spans join the caller's trace. Not in the ledger: it says where to look,
   * not what happened.
   */
  traceparent?: string;
  /** The schedule occurrence this task is, recorded in its task.enqueued entry. */
  schedule?: { id: string; name: string; occurrence: string };
};

type Row = {
  id: string;
  actor: string;
  stream: string;
  agent: string;
  input: JsonValue;
  key: string | null;
  runAt: string | null;
  priority: number;
  policy: JsonValue;
  parent: string | null;
  concurrencyKey: string | null;
  traceparent: string | null;
  data: JsonValue;
};

/**
 * The write itself, no questions asked: the tasks, their ledger streams' first entries and the
 * wake-up. One result per request, in order. A key already taken (before, or earlier in
 * `requests`) returns its task with created: false and writes nothing for that request.
 * `now` is the database clock the entries are stamped with (read just before).
 */
export async function insertTasks(
  client: SqlClient,
  /** Who enqueues: one for all, or one per request. */
  actor: string | readonly string[],
  requests: readonly Omit<EnqueueRequest, "unpublished">[],
  now?: Date,
): Promise<{ taskId: string; created: boolean }[]> {
  const actorOf = (i: number) => (typeof actor === "string" ? actor : (actor[i] ?? ""));
  if (requests.some((_, i) => actorOf(i).trim() === "")) {
    throw new Error("enqueue: a task needs an actor");
  }
  const results: { taskId: string; created: boolean }[] = [];
  const firstOfKey = new Map<string, number>();
  const rows: { index: number; row: Row }[] = [];
  for (const [index, r] of requests.entries()) {
    if (r.key !== undefined) {
      const first = firstOfKey.get(r.key);
      if (first !== undefined) {
        results.push({ taskId: "", created: false });
        continue;
      }
      firstOfKey.set(r.key, index);
    }
    if (r.priority !== undefined && !prioritySchema.safeParse(r.priority).success) {
      throw new Error(
        `enqueue: priority ${r.priority} is not a whole number from ${PRIORITY_MIN} to ${PRIORITY_MAX}`,
      );
    }
    const id = randomUUID();
    const input = toJsonValue(r.input, "input");
    const policy = toJsonValue(r.policy ?? null, "policy");
    const key = r.key ?? null;
    rows.push({
      index,
      row: {
        id,
        actor: actorOf(index),
        stream: taskStream(id),
        agent: r.agent,
        input,
        key,
        runAt: r.runAt?.toISOString() ?? null,
        priority: r.priority ?? DEFAULT_PRIORITY,
        policy,
        parent: r.parent ?? null,
        concurrencyKey: r.concurrencyKey ?? null,
        traceparent: r.traceparent ?? null,
        // The priority and the parent are recorded only when set: entries before them read the same.
        data: {
          agent: r.agent,
          input,
          key,
          policy,
          ...(r.priority ? { priority: r.priority } : {}),
          ...(r.parent ? { parent: r.parent } : {}),
          ...(r.schedule ? { schedule: r.schedule } : {}),
        },
      },
    });
    results.push({ taskId: id, created: true });
  }
  let clock = now;
  for (let start = 0; start < rows.length; start += ENQUEUE_CHUNK) {
    const chunk = rows.slice(start, start + ENQUEUE_CHUNK);
    clock ??= await readClock(client);
    const { inserted, held } = await insertChunk(
      client,
      chunk.map((c) => c.row),
      clock,
    );
    clock = undefined;
    const taken: { index: number; key: string }[] = [];
    for (const { index, row } of chunk) {
      if (inserted.has(row.id)) continue;
      // Only a keyed insert can be skipped: by the enqueue key's unique index.
      if (row.key === null) throw new Error(`enqueue: task ${row.id} was not inserted`);
      taken.push({ index, key: row.key });
    }
    // A key the statement's snapshot did not show was taken by a writer that committed while
    // it ran: read that holder now.
    const unseen = taken.filter((t) => !held.has(t.key)).map((t) => t.key);
    if (unseen.length > 0) {
      const existing = await client.query<{ id: string; enqueue_key: string }>(
        "select id, enqueue_key from tasks where enqueue_key = any($1::text[])",
        [unseen],
      );
      for (const r of existing.rows) held.set(r.enqueue_key, r.id);
    }
    for (const { index, key } of taken) {
      const id = held.get(key);
      if (!id) throw new Error(`enqueue key ${key} conflicted but no task holds it`);
      results[index] = { taskId: id, created: false };
    }
  }
  // A key repeated within the batch answers with the task its first use got.
  for (const [index, r] of requests.entries()) {
    if (r.key === undefined) continue;
    const first = firstOfKey.get(r.key);
    if (first !== undefined && first !== index) {
      results[index] = { taskId: results[first]?.taskId ?? "", created: false };
    }
  }
  return results;
}

async function readClock(client: SqlClient): Promise<Date> {
  const { rows } = await client.query<{ now: Date }>({
    name: "enqueue_read_clock",
    text: "select date_trunc('milliseconds', clock_timestamp()) as now",
  });
  const now = rows[0]?.now;
  if (!now) throw new Error("enqueue: the clock read answered no row");
  return now;
}

/**
 * One statement: insert the tasks (a taken key inserts nothing), and for each task inserted its
 * stream at seq 1 and its task.enqueued entry, hashed here from the genesis hash, then one
 * wake-up for the workers. Returns the ids inserted.
 */
async function insertChunk(
  client: SqlClient,
  rows: readonly Row[],
  now: Date,
): Promise<{ inserted: Set<string>; held: Map<string, string> }> {
  const at = now.toISOString();
  // Each task.enqueued checked, redacted and hashed by the ledger's own entry builder, at seq 1
  // of its new stream.
  const entries = entryColumns();
  for (const e of prepareEntries(
    rows.map((r) => ({
      stream: r.stream,
      kind: "task.enqueued",
      actor: r.actor,
      taskId: r.id,
      data: r.data,
    })),
  )) {
    entries.push(e, 1, GENESIS_HASH, at);
  }
  // Only a chunk with an enqueue key can conflict. Without one the insert is plain: ON CONFLICT
  // inserts speculatively and confirms each row, 48 bytes of WAL per task for nothing.
  const keyed = rows.some((r) => r.key !== null);
  const { rows: out } = await client.query<{ ids: string[]; held: Record<string, string> }>({
    // Named: prepared once per connection, so the hot path skips parsing and planning.
    name: keyed ? "enqueue_insert_tasks" : "enqueue_insert_tasks_unkeyed",
    text: `with r as (
       select * from unnest($1::uuid[], $2::text[], $3::text[], $4::jsonb[], $5::text[],
                            $6::timestamptz[], $7::jsonb[], $8::jsonb[], $9::text[], $10::text[],
                            $13::int[], $14::uuid[], $15::text[], $16::text[])
         with ordinality as r(id, stream, agent, input, key, run_at, policy, data, hash, actor, priority, parent,
                              concurrency_key, traceparent, ord)
     ), t as (
       insert into tasks (id, agent, input, enqueue_key, run_at, policy, created_by, priority, parent_id, concurrency_key,
                          traceparent)
       select id, agent, input, key, coalesce(run_at, now()), policy, actor, priority, parent, concurrency_key,
              traceparent
       from r order by ord
       ${keyed ? "on conflict (enqueue_key) where enqueue_key is not null do nothing" : ""}
       returning id
     ), s as (
       insert into ledger_streams (stream, head_seq, head_hash, updated_at)
       select r.stream, 1, r.hash, $11::timestamptz from r join t using (id)
       returning stream, month
     ), e as (
       -- The month (the entries' partition) is the new head's, as every append's.
       insert into ledger_entries (stream, seq, at, kind, actor, task_id, key, data, hash, month)
       select r.stream, 1, $11::timestamptz, 'task.enqueued', r.actor, r.id, null, r.data, r.hash, s.month
       from r join t using (id) join s on s.stream = r.stream order by r.ord
     ), n as (
       select pg_notify($12, min(id::text)) from t having count(*) > 0
     )
     select coalesce((select array_agg(id::text) from t), '{}') as ids, (select count(*) from n) as notified,
            -- The holders of keys taken before this statement began (a repeated enqueue's
            -- answer, without a second round trip).
            (select coalesce(jsonb_object_agg(x.enqueue_key, x.id), '{}') from tasks x
             where x.enqueue_key in (select key from r where key is not null)) as held`,
    values: [
      rows.map((r) => r.id),
      rows.map((r) => r.stream),
      rows.map((r) => r.agent),
      rows.map((r) => JSON.stringify(r.input)),
      rows.map((r) => r.key),
      rows.map((r) => r.runAt),
      rows.map((r) => (r.policy === null ? null : JSON.stringify(r.policy))),
      entries.data,
      entries.hash,
      entries.actor,
      at,
      TASKS_CHANNEL,
      rows.map((r) => r.priority),
      rows.map((r) => r.parent),
      rows.map((r) => r.concurrencyKey),
      rows.map((r) => r.traceparent),
    ],
  });
  return {
    inserted: new Set(out[0]?.ids ?? []),
    held: new Map(Object.entries(out[0]?.held ?? {})),
  };
}
