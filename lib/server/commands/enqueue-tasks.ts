// Enqueues tasks, one or many: the one place that decides whether they may be (tasks:enqueue),
// whether each agent exists and whether each input matches the JSON Schema its workers published
// (agent_catalog), and the statement that writes them. enqueueTask (enqueue-task.ts) is this
// with one request. A batch is all or nothing: every item is checked before anything is
// written, and one refused item refuses the batch, naming each bad item by its index.
//
// Round trips: one read (the agents' schemas and the database clock), then one statement per
// 1,000 tasks that inserts the tasks, their ledger streams, each stream's first entry
// (task.enqueued, hash-chained from the genesis hash) and the wake-up. A task's stream is new
// (its id is made here), so its head needs no lock: nobody else can append to it yet.
import { randomUUID } from "node:crypto";
import pg from "pg";
import { z } from "zod";
import { type SqlClient, withTransaction } from "../../../db/client";
import { CommitInDoubtError, isConnectionError } from "../../../db/retry";
import type { Principal } from "../../domain/access";
import { type CommandFailure, refuseWithout } from "../../domain/command-result";
import { GENESIS_HASH } from "../../domain/hash";
import { type JsonValue, JsonValueError, toJsonValue } from "../../domain/json";
import {
  DEFAULT_PRIORITY,
  PRIORITY_MAX,
  PRIORITY_MIN,
  prioritySchema,
} from "../../domain/priority";
import { describeIssues } from "../../domain/zod-issues";
import { type GroupCommit, groupCommit } from "../group-commit";
import { entryColumns, prepareEntries, taskStream } from "../ledger/append-ledger";

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
  unpublished?: "refuse" | "enqueue";
  /**
   * The caller's W3C traceparent, already parsed (lib/domain/traceparent.ts): stored on the task
   * so its attempts' spans join the caller's trace. Not in the ledger: it says where to look,
   * not what happened.
   */
  traceparent?: string;
  /** The schedule occurrence this task is, recorded in its task.enqueued entry. */
  schedule?: { id: string; name: string; occurrence: string };
};

export type EnqueueResult = {
  taskId: string;
  created: boolean;
  /** Why the input was not checked against a published schema, when it was not. */
  unchecked?: string;
};

/** Why a task was not enqueued; nothing was written. */
export type EnqueueRefusal =
  | (CommandFailure & { code: "forbidden" })
  /** No worker has published the agent; `known` are the agents that have been. */
  | (CommandFailure & { code: "not_found"; known: string[] })
  /** The input does not match the published schema; `issues` says where, field by field. */
  | (CommandFailure & { code: "invalid"; issues: z.ZodError });

export type InputRefusal = Exclude<EnqueueRefusal, { code: "forbidden" }>;

export type InputCheck = { ok: true; unchecked?: string } | InputRefusal;

/** One refused item of a batch: its index in the request and why. */
export type ItemRefusal = { index: number; refusal: InputRefusal };

export type EnqueueManyOutcome =
  /** One result per request, in order. */
  | { ok: true; value: EnqueueResult[] }
  | (CommandFailure & { code: "forbidden" })
  /** Every refused item; nothing was written. */
  | (CommandFailure & { code: "invalid"; items: ItemRefusal[] });

/**
 * Checks every request, then enqueues them all or none: in the caller's transaction when given
 * a client, otherwise in one of its own (a batch of at most ENQUEUE_CHUNK is one statement,
 * atomic by itself, so it needs none).
 */
export async function enqueueTasks(
  db: pg.Pool | SqlClient,
  principal: Principal,
  requests: readonly EnqueueRequest[],
): Promise<EnqueueManyOutcome> {
  const refused = refuseWithout(principal, "tasks:enqueue", "enqueue tasks");
  if (refused) return { ...refused, code: "forbidden" };
  if (requests.length === 0) return { ok: true, value: [] };
  if (isPool(db) && requests.length > ENQUEUE_CHUNK) {
    return withTransaction(db, (client) => checkAndInsertAll(client, principal.actor, requests));
  }
  const [one] = requests;
  if (isPool(db) && requests.length === 1 && one) {
    return groupedEnqueue(db)({ actor: principal.actor, request: one });
  }
  return checkAndInsertAll(db, principal.actor, requests);
}

type Single = { actor: string; request: EnqueueRequest };
const grouped = new WeakMap<pg.Pool, GroupCommit<Single, EnqueueManyOutcome>>();

/**
 * Single enqueues on one pool share statements (group-commit.ts): requests that arrive while
 * one is being written (concurrent POSTs, say) are checked and written together in the next,
 * each answered as if alone — a refused one is refused, the rest are enqueued. A batch whose
 * connection was lost is in doubt as a whole: its callers get the error, none is re-sent.
 */
function groupedEnqueue(pool: pg.Pool): GroupCommit<Single, EnqueueManyOutcome> {
  let enqueue = grouped.get(pool);
  if (!enqueue) {
    enqueue = groupCommit<Single, EnqueueManyOutcome>({
      one: (s) => checkAndInsertAll(pool, s.actor, [s.request]),
      many: async (batch) => {
        try {
          return await checkAndInsertEach(pool, batch);
        } catch (err) {
          throw isConnectionError(err) ? new CommitInDoubtError(err) : err;
        }
      },
    });
    grouped.set(pool, enqueue);
  }
  return enqueue;
}

/**
 * A pool, not a client. By shape too: the library's caller may hand us a Pool from their own
 * copy of pg, and running the chunks of one batch on a bare pool would split them across
 * connections and transactions.
 */
export function isPool(db: pg.Pool | SqlClient): db is pg.Pool {
  return db instanceof pg.Pool || ("totalCount" in db && "idleCount" in db && !("release" in db));
}

type Verdict = { ok: true; unchecked?: string } | { ok: false; refusal: InputRefusal };

/** Every request checked against the catalog in one read; the database clock for the write. */
async function judgeAll(
  client: SqlClient,
  requests: readonly EnqueueRequest[],
): Promise<{ verdicts: Verdict[]; now: Date }> {
  const { schemas, now } = await readCatalog(
    client,
    requests.map((r) => r.agent),
  );
  let known: string[] | undefined;
  const knownAgents = async () => {
    known ??= await listAgents(client);
    return known;
  };
  const verdicts: Verdict[] = [];
  for (const r of requests) {
    const check = judgeInput(r.agent, r.input, schemas.get(r.agent), r.unpublished);
    verdicts.push(
      check.ok
        ? check
        : {
            ok: false,
            refusal: check.code === "not_found" ? notFound(r.agent, await knownAgents()) : check,
          },
    );
  }
  return { verdicts, now };
}

/** With the enqueue's note when the input could not be checked here. */
const withNote = (w: EnqueueResult, verdict: Verdict | undefined): EnqueueResult =>
  verdict?.ok && verdict.unchecked ? { ...w, unchecked: verdict.unchecked } : w;

/** All or nothing: one refused request refuses them all. */
async function checkAndInsertAll(
  client: SqlClient,
  actor: string,
  requests: readonly EnqueueRequest[],
): Promise<EnqueueManyOutcome> {
  const { verdicts, now } = await judgeAll(client, requests);
  const refusals: ItemRefusal[] = verdicts.flatMap((v, index) =>
    v.ok ? [] : [{ index, refusal: v.refusal }],
  );
  if (refusals.length > 0) {
    const shown = refusals
      .slice(0, 5)
      .map((r) => `#${r.index}: ${r.refusal.message}`)
      .join("; ");
    return {
      ok: false,
      code: "invalid",
      message:
        requests.length === 1
          ? (refusals[0]?.refusal.message ?? "refused")
          : `${refusals.length} of ${requests.length} tasks refused, nothing was enqueued: ${shown}${refusals.length > 5 ? "; …" : ""}`,
      items: refusals,
    };
  }
  const written = await insertTasks(client, actor, requests, now);
  return { ok: true, value: written.map((w, i) => withNote(w, verdicts[i])) };
}

/** Each request on its own (a grouped batch of single enqueues), written in one statement. */
async function checkAndInsertEach(
  pool: pg.Pool,
  batch: readonly Single[],
): Promise<EnqueueManyOutcome[]> {
  const { verdicts, now } = await judgeAll(
    pool,
    batch.map((s) => s.request),
  );
  const accepted = batch.filter((_, i) => verdicts[i]?.ok);
  const written = await insertTasks(
    pool,
    accepted.map((s) => s.actor),
    accepted.map((s) => s.request),
    now,
  );
  let next = 0;
  return verdicts.map((v): EnqueueManyOutcome => {
    if (!v.ok) {
      return {
        ok: false,
        code: "invalid",
        message: v.refusal.message,
        items: [{ index: 0, refusal: v.refusal }],
      };
    }
    const w = written[next++];
    if (!w) throw new Error("enqueue: no result for an accepted request");
    return { ok: true, value: [withNote(w, v)] };
  });
}

/** The published schemas of `agents` and the database clock (to the millisecond entries keep). */
async function readCatalog(
  client: SqlClient,
  agents: readonly string[],
): Promise<{ schemas: Map<string, unknown>; now: Date }> {
  const { rows } = await client.query<{ schemas: Record<string, unknown> | null; now: Date }>({
    name: "enqueue_read_catalog",
    text: `select (select jsonb_object_agg(name, input_schema) from agent_catalog where name = any($1::text[])) as schemas,
                  date_trunc('milliseconds', clock_timestamp()) as now`,
    values: [[...new Set(agents)]],
  });
  const row = rows[0];
  if (!row) throw new Error("enqueue: the catalog read answered no row");
  return { schemas: new Map(Object.entries(row.schemas ?? {})), now: row.now };
}

async function listAgents(client: SqlClient): Promise<string[]> {
  const names = await client.query<{ name: string }>(
    "select name from agent_catalog order by name",
  );
  return names.rows.map((r) => r.name);
}

function notFound(agent: string, known: string[]): InputRefusal {
  return {
    ok: false,
    code: "not_found",
    message: `no worker has published an agent named "${agent}"; known: ${known.length ? known.join(", ") : "none yet (start a worker)"}`,
    known,
  };
}

/**
 * Whether `input` matches `published` (the agent's catalog schema, undefined when no worker
 * published it). A not_found answer carries no `known` yet: the caller reads the catalog for it.
 */
export function judgeInput(
  agent: string,
  input: unknown,
  published: unknown,
  unpublished: EnqueueRequest["unpublished"] = "refuse",
): InputCheck {
  try {
    toJsonValue(input, "input");
  } catch (err) {
    if (!(err instanceof JsonValueError)) throw err;
    const issues = new z.ZodError([{ code: "custom", path: [], message: err.message, input }]);
    return {
      ok: false,
      code: "invalid",
      message: `the input cannot be stored: ${err.message}`,
      issues,
    };
  }
  if (published === undefined) {
    if (unpublished !== "enqueue") return notFound(agent, []);
    return { ok: true, unchecked: `no worker has published ${agent} yet` };
  }
  const schema = compile(published);
  if (schema instanceof Error) {
    // The worker checks the input with the agent's own zod schema anyway.
    return {
      ok: true,
      unchecked: `${agent}'s published input schema cannot be checked here (${schema.message})`,
    };
  }
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    return {
      ok: false,
      code: "invalid",
      message: `the input does not match ${agent}'s input schema: ${describeIssues(parsed.error, "input.")}`,
      issues: parsed.error,
    };
  }
  return { ok: true };
}

/**
 * Whether `input` matches the JSON Schema the agent's workers published: the one check for a
 * new task's input and for a reviewer's corrected one. `unpublished` as in EnqueueRequest.
 */
export async function checkAgentInput(
  client: SqlClient,
  agent: string,
  input: unknown,
  unpublished: EnqueueRequest["unpublished"] = "refuse",
): Promise<InputCheck> {
  const { schemas } = await readCatalog(client, [agent]);
  const check = judgeInput(agent, input, schemas.get(agent), unpublished);
  if (!check.ok && check.code === "not_found") return notFound(agent, await listAgents(client));
  return check;
}

/** Compiled input schemas by their JSON text: agents are few, and compiling is not free. */
const compiled = new Map<string, z.ZodType | Error>();

function compile(inputSchema: unknown): z.ZodType | Error {
  const text = JSON.stringify(inputSchema);
  let schema = compiled.get(text);
  if (schema === undefined) {
    try {
      schema = z.fromJSONSchema(inputSchema as Parameters<typeof z.fromJSONSchema>[0]);
    } catch (err) {
      schema = err instanceof Error ? err : new Error(String(err));
    }
    if (compiled.size >= 500) compiled.clear();
    compiled.set(text, schema);
  }
  return schema;
}

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
  const { rows: out } = await client.query<{ ids: string[]; held: Record<string, string> }>({
    // Named: prepared once per connection, so the hot path skips parsing and planning.
    name: "enqueue_insert_tasks",
    text: `with r as (
       select * from unnest($1::uuid[], $2::text[], $3::text[], $4::jsonb[], $5::text[],
                            $6::timestamptz[], $7::jsonb[], $8::jsonb[], $9::text[], $10::text[],
                            $14::int[], $15::uuid[], $16::text[], $17::text[])
         with ordinality as r(id, stream, agent, input, key, run_at, policy, data, hash, actor, priority, parent,
                              concurrency_key, traceparent, ord)
     ), t as (
       insert into tasks (id, agent, input, enqueue_key, run_at, policy, created_by, priority, parent_id, concurrency_key,
                          traceparent)
       select id, agent, input, key, coalesce(run_at, now()), policy, actor, priority, parent, concurrency_key,
              traceparent
       from r order by ord
       on conflict (enqueue_key) where enqueue_key is not null do nothing
       returning id
     ), s as (
       insert into ledger_streams (stream, head_seq, head_hash, updated_at)
       select r.stream, 1, r.hash, $11::timestamptz from r join t using (id)
       returning stream, month
     ), e as (
       -- The month (the entries' partition) is the new head's, as every append's.
       insert into ledger_entries (stream, seq, at, kind, actor, task_id, key, data, prev_hash, hash, month)
       select r.stream, 1, $11::timestamptz, 'task.enqueued', r.actor, r.id, null, r.data, $12, r.hash, s.month
       from r join t using (id) join s on s.stream = r.stream order by r.ord
     ), n as (
       select pg_notify($13, min(id::text)) from t having count(*) > 0
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
      GENESIS_HASH,
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
