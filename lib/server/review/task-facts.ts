// The facts about a task that the task-actions table asks for besides its status (an effect
// whose outcome is unknown, a pending review request), as one SQL text each: the commands read
// them under the row lock before asking the table, and the inbox reads them per listed task,
// so "You may" and the command agree.
import type { SqlClient } from "../../../db/client";
import type { TaskFact } from "../../domain/task-actions";

/**
 * SQL that is true when the task whose id is the expression `taskId` holds the fact. An unknown
 * outcome is the runtime's rule: a started effect without a live lease.
 */
export const TASK_FACT_SQL: Record<TaskFact, (taskId: string) => string> = {
  unknownOutcome: (taskId) =>
    `exists (select 1 from effects e where e.task_id = ${taskId} and e.status = 'started'
              and not coalesce(e.lease_expires_at > now(), false))`,
  pendingRequest: (taskId) =>
    `exists (select 1 from review_requests rr where rr.task_id = ${taskId} and rr.status = 'pending')`,
};

export async function readTaskFact(
  client: SqlClient,
  taskId: string,
  fact: TaskFact,
): Promise<boolean> {
  const { rows } = await client.query<{ holds: boolean }>(
    `select ${TASK_FACT_SQL[fact]("$1::uuid")} as holds`,
    [taskId],
  );
  return rows[0]?.holds === true;
}
