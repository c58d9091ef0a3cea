// What every task command shares: lock the task, check it is at the version the reviewer saw,
// ask lib/domain/task-actions whether this principal may do this action in this state, and
// otherwise say exactly why not. Guarded writes assert the one row they expect.
import type pg from "pg";
import { type SqlClient, withTransaction } from "../../../db/client";
import type { Principal } from "../../domain/access";
import { archivedStreamRefusal, archivedTaskMessage } from "../../domain/archive";
import { type CommandResult, conflict, notFound } from "../../domain/command-result";
import { appliesTo, factNeeded, refusalOf, type TaskAction } from "../../domain/task-actions";
import type { TaskStatus } from "../../domain/task-states";
import { taskStream } from "../ledger/append-ledger";
import { readTaskFact } from "../review/task-facts";
import { TASKS_CHANNEL } from "./insert-tasks";

export type LockedTask = {
  id: string;
  agent: string;
  status: TaskStatus;
  dead_reason: string | null;
  version: number;
  attempts: number;
};

/**
 * A guarded write matched no row although the task row is locked: thrown to roll back what the
 * transaction already wrote, and answered as a conflict by taskTransaction.
 */
class GuardLost extends Error {
  override name = "GuardLost";
}

/**
 * A task command's transaction: a guarded write that lost, or an append the database refused
 * because the task's stream is archived, is a conflict, nothing kept.
 */
export async function taskTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<CommandResult<T>>,
): Promise<CommandResult<T>> {
  try {
    return await withTransaction(pool, fn);
  } catch (error) {
    if (error instanceof GuardLost) return conflict(error.message);
    // The status rules refuse a closed task first; this is the database's word for any path
    // that still reaches an archived stream (migration 0054).
    const archived = archivedStreamRefusal(error);
    if (archived) return conflict(archivedTaskMessage(archived.archiveId));
    throw error;
  }
}

/** The rows a guarded update must return, `count` of them; fewer means the guard lost. */
export function expectRows<R>(rows: readonly R[], count: number, what: string): readonly R[] {
  if (rows.length !== count) {
    throw new GuardLost(`${what} changed while this action ran; nothing was done, try again`);
  }
  return rows;
}

/** The single row a guarded update must return. */
export function theRow<R>(rows: readonly R[], what: string): R {
  return expectRows(rows, 1, what)[0] as R;
}

/**
 * Locks the task and returns it, or the reason the action cannot apply: not found, a version
 * other than the one the reviewer acted on (null: whatever it is now), a status the action does
 * not take, or a principal without the scope the action needs in that status.
 */
export async function lockTaskFor(
  client: SqlClient,
  principal: Principal,
  taskId: string,
  expectedVersion: number | null,
  action: TaskAction | ((status: TaskStatus) => TaskAction),
): Promise<{ task: LockedTask } | { error: CommandResult<never> }> {
  const { rows } = await client.query<LockedTask>(
    "select id, agent, status, dead_reason, version, attempts from tasks where id = $1 for update",
    [taskId],
  );
  const task = rows[0];
  if (!task) return { error: notFound(`no task ${taskId}`) };
  if (expectedVersion !== null && task.version !== expectedVersion) {
    const last = await client.query<{ kind: string; actor: string; at: Date }>(
      "select kind, actor, at from ledger_entries where stream = $1 order by seq desc limit 1",
      [taskStream(taskId)],
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
  const name = typeof action === "function" ? action(task.status) : action;
  // The table's own facts (an unknown outcome to resolve, a request to withdraw), read under the
  // lock, so the command refuses exactly what the screens do not offer.
  const fact = factNeeded(name);
  const facts = fact
    ? { status: task.status, [fact]: await readTaskFact(client, task.id, fact) }
    : { status: task.status };
  const refusal = refusalOf(name, facts, principal);
  if (!refusal) return { task };
  // A closed task may be archived: say so, read only on this refusal's path.
  if (refusal.code === "conflict" && !appliesTo(name, task.status)) {
    const archiveId = await archiveOfTask(client, task.id);
    if (archiveId !== null) {
      return { error: conflict(`${archivedTaskMessage(archiveId)} (${refusal.message})`) };
    }
  }
  return { error: refusal };
}

/** The archive holding the task's ledger stream, or null (ledger_streams by primary key). */
async function archiveOfTask(client: SqlClient, taskId: string): Promise<string | null> {
  const { rows } = await client.query<{ archived_in: string | null }>(
    "select archived_in from ledger_streams where stream = $1",
    [taskStream(taskId)],
  );
  return rows[0]?.archived_in ?? null;
}

/** Moves the locked task on by one version, to `set` (SQL assignments); returns the version. */
export async function bumpTask(
  client: SqlClient,
  task: LockedTask,
  set: string,
  params: readonly unknown[] = [],
): Promise<number> {
  const { rows } = await client.query<{ version: number }>(
    `update tasks set ${set}${set ? ", " : ""}version = version + 1, updated_at = now()
     where id = $1 and version = $2 returning version`,
    [task.id, task.version, ...params],
  );
  return theRow(rows, `task ${task.id}`).version;
}

/**
 * Back to the queue after a review decision, on the version the reviewer acted on (the task
 * row is locked by lockTaskFor). `freshAttempts` gives the task a new attempt budget: the budget
 * starts at the attempts made so far, and the attempt numbers keep counting from there.
 */
export async function requeueReviewed(
  client: SqlClient,
  task: LockedTask,
  freshAttempts: boolean,
): Promise<number> {
  return bumpTask(
    client,
    task,
    `status = 'queued', dead_reason = null, run_at = now(),
       attempt_base = case when $3 then attempts else attempt_base end, status_changed_at = now()`,
    [freshAttempts],
  );
}

/**
 * The journal from step `fromStep` on is forgotten (a replay, an input correction): its rows of
 * `steps` go, and the tool steps kept on their effects are detached from it. The effects stay:
 * their keys still dedupe the re-run, which journals each again when it calls it.
 */
export async function truncateJournal(
  client: SqlClient,
  taskId: string,
  fromStep: number,
): Promise<void> {
  await client.query(
    `with gone as (delete from steps where task_id = $1 and seq >= $2)
     update effects set journal_attempt = null
      where task_id = $1 and step_seq >= $2 and journal_attempt is not null`,
    [taskId, fromStep],
  );
}

export async function notifyWorkers(client: SqlClient, taskId: string): Promise<void> {
  await client.query("select pg_notify($1, $2)", [TASKS_CHANNEL, taskId]);
}
