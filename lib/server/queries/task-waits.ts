// A task's event waits for its page: what it waits for now (name, match, since, deadline) and
// what each earlier wait got, and whether the viewer may send an event by hand.
import type pg from "pg";
import { can, type Viewer } from "../../domain/access";
import type { JsonValue } from "../../domain/json";
import type { WaitStatus } from "../../domain/task-states";

export type TaskWaitDto = {
  step: number;
  name: string;
  match: { [key: string]: JsonValue };
  status: WaitStatus;
  since: string;
  /** Null: no timeout. */
  deadline: string | null;
  closedAt: string | null;
  eventId: string | null;
};

export type TaskWaitsDto = { waits: TaskWaitDto[]; canSend: boolean };

export async function readTaskWaits(
  pool: pg.Pool,
  viewer: Viewer,
  taskId: string,
): Promise<TaskWaitsDto> {
  const { rows } = await pool.query<{
    seq: number;
    name: string;
    match: { [key: string]: JsonValue };
    status: WaitStatus;
    created_at: Date;
    deadline: Date | null;
    closed_at: Date | null;
    event_id: string | null;
  }>({
    name: "task_waits",
    text: `select seq, name, match, status, created_at, deadline, closed_at, event_id
           from event_waits where task_id = $1 order by seq`,
    values: [taskId],
  });
  return {
    waits: rows.map((r) => ({
      step: r.seq,
      name: r.name,
      match: r.match,
      status: r.status,
      since: r.created_at.toISOString(),
      deadline: r.deadline?.toISOString() ?? null,
      closedAt: r.closed_at?.toISOString() ?? null,
      eventId: r.event_id,
    })),
    canSend: can(viewer, "events:send"),
  };
}
