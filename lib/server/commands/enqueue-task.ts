// Enqueues a task: the one place that decides whether it may be (tasks:enqueue), whether the
// agent exists, and whether the input matches the JSON Schema its workers published
// (agent_catalog). The API, the CLI, the library, the demo seed, the alert evaluator and the
// bench all come through here. With a key, enqueueing is idempotent: the same key returns the
// first task and writes nothing.
import pg from "pg";
import { z } from "zod";
import { type SqlClient, withTransaction } from "../../../db/client";
import type { Principal } from "../../domain/access";
import { type CommandFailure, refuseWithout } from "../../domain/command-result";
import { toJsonValue } from "../../domain/json";
import { describeIssues } from "../../domain/zod-issues";
import { appendLedger, taskStream } from "../ledger/append-ledger";

export const TASKS_CHANNEL = "agent_ledger_tasks";

export type EnqueueRequest = {
  agent: string;
  input: unknown;
  key?: string;
  runAt?: Date;
  /** Task-level retry policy override (partial). */
  policy?: Record<string, unknown>;
  /**
   * An agent no worker has published yet: "refuse" it (the default: the API and the CLI, where
   * someone typed its name) or "enqueue" it for the worker that will publish and run it (the
   * library, the seed, the alerts and the bench, whose code names agents it deploys itself).
   * Either way a published schema, when there is one, is checked.
   */
  unpublished?: "refuse" | "enqueue";
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

export type EnqueueOutcome = { ok: true; value: EnqueueResult } | EnqueueRefusal;

/**
 * Checks and enqueues, in the caller's transaction when given a client (the API's
 * Idempotency-Key path stores its response in the same one) or in one of its own on a pool.
 */
export async function enqueueTask(
  db: pg.Pool | SqlClient,
  principal: Principal,
  request: EnqueueRequest,
): Promise<EnqueueOutcome> {
  const refused = refuseWithout(principal, "tasks:enqueue", "enqueue tasks");
  if (refused) return { ...refused, code: "forbidden" };
  if (isPool(db)) {
    return withTransaction(db, (client) => checkAndInsert(client, principal, request));
  }
  return checkAndInsert(db, principal, request);
}

/**
 * A pool, not a client. By shape too: the library's caller may hand us a Pool from their own
 * copy of pg, and running the insert and its ledger entry on a bare pool would split them
 * across connections and transactions.
 */
function isPool(db: pg.Pool | SqlClient): db is pg.Pool {
  return db instanceof pg.Pool || ("totalCount" in db && "idleCount" in db && !("release" in db));
}

async function checkAndInsert(
  client: SqlClient,
  principal: Principal,
  request: EnqueueRequest,
): Promise<EnqueueOutcome> {
  const checked = await checkAgentInput(client, request.agent, request.input, request.unpublished);
  if (!checked.ok) return checked;
  const value = await insertTask(client, { ...request, actor: principal.actor });
  return {
    ok: true,
    value: checked.unchecked ? { ...value, unchecked: checked.unchecked } : value,
  };
}

export type InputCheck =
  | { ok: true; unchecked?: string }
  | Exclude<EnqueueRefusal, { code: "forbidden" }>;

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
  // One row on the enqueue path; the whole catalog only to word a refusal.
  const { rows } = await client.query<{ input_schema: unknown }>(
    "select input_schema from agent_catalog where name = $1",
    [agent],
  );
  const published = rows[0];
  if (!published) {
    if (unpublished !== "enqueue") {
      const names = await client.query<{ name: string }>(
        "select name from agent_catalog order by name",
      );
      const known = names.rows.map((r) => r.name);
      return {
        ok: false,
        code: "not_found",
        message: `no worker has published an agent named "${agent}"; known: ${known.length ? known.join(", ") : "none yet (start a worker)"}`,
        known,
      };
    }
    return { ok: true, unchecked: `no worker has published ${agent} yet` };
  }
  const schema = compile(published.input_schema);
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

/**
 * The write itself, no questions asked: the task, its ledger stream's first entry and the
 * wake-up, in the caller's transaction. enqueueTask's last step; tests call it to stage a task
 * for an agent they never publish.
 */
export async function insertTask(
  client: SqlClient,
  req: Omit<EnqueueRequest, "unpublished"> & { actor: string },
): Promise<EnqueueResult> {
  const input = toJsonValue(req.input, "input");
  const { rows } = await client.query<{ id: string }>(
    `insert into tasks (agent, input, enqueue_key, run_at, policy, created_by)
     values ($1, $2, $3, coalesce($4::timestamptz, now()), $5, $6)
     on conflict (enqueue_key) do nothing
     returning id`,
    [
      req.agent,
      JSON.stringify(input),
      req.key ?? null,
      req.runAt?.toISOString() ?? null,
      req.policy ? JSON.stringify(toJsonValue(req.policy, "policy")) : null,
      req.actor,
    ],
  );
  const created = rows[0];
  if (!created) {
    const existing = await client.query<{ id: string }>(
      "select id from tasks where enqueue_key = $1",
      [req.key],
    );
    const id = existing.rows[0]?.id;
    if (!id) throw new Error(`enqueue key ${req.key} conflicted but no task holds it`);
    return { taskId: id, created: false };
  }
  await appendLedger(client, taskStream(created.id), {
    kind: "task.enqueued",
    actor: req.actor,
    taskId: created.id,
    data: {
      agent: req.agent,
      input,
      key: req.key ?? null,
      policy: toJsonValue(req.policy ?? null),
    },
  });
  await client.query("select pg_notify($1, $2)", [TASKS_CHANNEL, created.id]);
  return { taskId: created.id, created: true };
}
