// Enqueues a task and opens its ledger stream in one transaction. With a key, enqueueing is
// idempotent: the same key returns the first task and writes nothing.
import type pg from "pg";
import { type SqlClient, withTransaction } from "../../../db/client";
import { toJsonValue } from "../../domain/json";
import { appendLedger, taskStream } from "../ledger/append-ledger";

export const TASKS_CHANNEL = "agent_ledger_tasks";

export type EnqueueInput = {
  agent: string;
  input: unknown;
  key?: string;
  runAt?: Date;
  /** Task-level retry policy override (partial). */
  policy?: Record<string, unknown>;
  actor: string;
};

export type EnqueueResult = { taskId: string; created: boolean };

export async function enqueueTask(client: SqlClient, req: EnqueueInput): Promise<EnqueueResult> {
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

/** The same in a transaction of its own. */
export async function enqueueTaskWith(pool: pg.Pool, req: EnqueueInput): Promise<EnqueueResult> {
  return withTransaction(pool, (client) => enqueueTask(client, req));
}
