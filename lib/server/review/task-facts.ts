// The facts about a task that the task-actions table asks for besides its status (an effect
// whose outcome is unknown, a pending review request), as one SQL text each: the commands read
// them under the row lock before asking the table, and the inbox reads them per listed task,
// so "You may" and the command agree.
import type { SqlClient } from "../../../db/client";
import type { TaskFact } from "../../domain/task-actions";

/** SQL that is true when the task aliased `t` holds the fact. Same rule as the runtime. */
export const TASK_FACT_SQL: Record<TaskFact, (t: string) => string> = {
  unknownOutcome: (t) =>
    `exists (select 1 from effects e where e.task_id = ${t}.id and e.status = 'started'
              and not coalesce(e.lease_expires_at > now(), false))`,
  pendingRequest: (t) =>
    `exists (select 1 from review_requests rr where rr.task_id = ${t}.id and rr.status = 'pending')`,
};

export async function readTaskFact(
  client: SqlClient,
  taskId: string,
  fact: TaskFact,
): Promise<boolean> {
  const { rows } = await client.query<{ holds: boolean }>(
    `select ${TASK_FACT_SQL[fact]("t")} as holds from tasks t where t.id = $1`,
    [taskId],
  );
  return rows[0]?.holds ?? false;
}
