// What every review command shares: lock the task, check it is in a state the action applies
// to and at the version the reviewer saw, and otherwise say exactly why not.
import type { SqlClient } from "../../../db/client";
import type { TaskStatus } from "../../domain/task-states";
import { TASKS_CHANNEL } from "./enqueue-task";

export type LockedTask = {
  id: string;
  agent: string;
  status: TaskStatus;
  dead_reason: string | null;
  version: number;
  attempts: number;
};

export type CommandResult<T = { id: string; status: TaskStatus; version: number }> =
  | { ok: true; value: T }
  | {
      ok: false;
      code: "not_found" | "conflict" | "invalid";
      message: string;
      /** A conflict because the task moved past the version the caller acted on. */
      stale?: true;
    };

export const conflict = (message: string): CommandResult<never> => ({
  ok: false,
  code: "conflict",
  message,
});

/**
 * Locks the task and returns it, or the reason the action cannot apply: not found, a status
 * the action does not take, or a version other than the one the reviewer acted on.
 */
export async function lockTaskFor(
  client: SqlClient,
  taskId: string,
  expectedVersion: number,
  allowed: readonly TaskStatus[],
  action: string,
): Promise<{ task: LockedTask } | { error: CommandResult<never> }> {
  const { rows } = await client.query<LockedTask>(
    "select id, agent, status, dead_reason, version, attempts from tasks where id = $1 for update",
    [taskId],
  );
  const task = rows[0];
  if (!task) return { error: { ok: false, code: "not_found", message: `no task ${taskId}` } };
  if (task.version !== expectedVersion) {
    const last = await client.query<{ kind: string; actor: string; at: Date }>(
      "select kind, actor, at from ledger_entries where stream = $1 order by seq desc limit 1",
      [`task:${taskId}`],
    );
    const l = last.rows[0];
    const since = l ? ` (last change: ${l.kind} by ${l.actor} at ${l.at.toISOString()})` : "";
    return {
      error: {
        ok: false,
        code: "conflict",
        message: `the task changed since you loaded it: it is ${task.status} at version ${task.version}, you acted on version ${expectedVersion}${since}`,
        stale: true,
      },
    };
  }
  if (!allowed.includes(task.status)) {
    return { error: conflict(`cannot ${action} a task that is ${task.status}`) };
  }
  return { task };
}

/**
 * Back to the queue after a review decision, on the version the reviewer acted on (the task
 * row is locked by lockTaskFor). `freshAttempts` gives the task a new attempt budget.
 */
export async function requeueReviewed(
  client: SqlClient,
  task: LockedTask,
  freshAttempts: boolean,
): Promise<number> {
  const { rows } = await client.query<{ version: number }>(
    `update tasks set status = 'queued', dead_reason = null, run_at = now(),
       attempts = case when $3 then 0 else attempts end,
       version = version + 1, updated_at = now(), status_changed_at = now()
     where id = $1 and version = $2 returning version`,
    [task.id, task.version, freshAttempts],
  );
  return rows[0]?.version ?? task.version + 1;
}

export async function notifyWorkers(client: SqlClient, taskId: string): Promise<void> {
  await client.query("select pg_notify($1, $2)", [TASKS_CHANNEL, taskId]);
}
