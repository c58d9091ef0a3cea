// What a team's test reads back about one task: its state, its effects and its ledger entries.
import type pg from "pg";
import type { JsonValue } from "../../lib/domain/json";
import type { TaskStatus } from "../../lib/domain/task-states";

/** States a task stays in until something outside the worker acts. */
export const SETTLED: readonly TaskStatus[] = [
  "succeeded",
  "rejected",
  "cancelled",
  "dead",
  "awaiting_approval",
  "waiting",
];

export type TaskReport = {
  taskId: string;
  status: TaskStatus;
  deadReason: string | null;
  result: JsonValue | null;
  lastError: JsonValue | null;
  attempts: number;
  effects: { tool: string; key: string; status: string; attempts: number; result: JsonValue }[];
  ledger: { kind: string; actor: string; data: JsonValue }[];
};

export async function taskReport(pool: pg.Pool, taskId: string): Promise<TaskReport> {
  const task = await pool.query(
    "select status, dead_reason, result, last_error, attempts from tasks where id = $1",
    [taskId],
  );
  const row = task.rows[0];
  if (!row) throw new Error(`no task ${taskId}`);
  const effects = await pool.query(
    "select tool, key, status, attempts, result from effects where task_id = $1 order by step_seq, created_at",
    [taskId],
  );
  const ledger = await pool.query(
    "select kind, actor, data from ledger_entries where task_id = $1 order by id",
    [taskId],
  );
  return {
    taskId,
    status: row.status,
    deadReason: row.dead_reason,
    result: row.result,
    lastError: row.last_error,
    attempts: row.attempts,
    effects: effects.rows,
    ledger: ledger.rows,
  };
}

/** Waits until every task is settled (see SETTLED), polling; throws naming those that are not. */
export async function waitSettled(
  pool: pg.Pool,
  taskIds: readonly string[],
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // A task parked on ctx.join whose children have all ended is not settled: it is about to be
    // woken (in the same transaction as its last child, or by its own look-again after a race).
    const { rows } = await pool.query<{ id: string; status: string }>(
      `select t.id, t.status from tasks t
        where t.id = any($1::uuid[])
          and (not (t.status = any($2::text[]))
               or (t.status = 'waiting' and join_ready(t.id)))`,
      [taskIds, SETTLED],
    );
    if (rows.length === 0) return;
    if (Date.now() > deadline) {
      const list = rows.slice(0, 5).map((r) => `${r.id} (${r.status})`);
      throw new Error(
        `${rows.length} task(s) not settled after ${timeoutMs} ms: ${list.join(", ")}`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
