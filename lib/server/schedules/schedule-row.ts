// What commands on schedules share: the row as the ledger records it, and the lookup by
// (agent, name) under the row lock.
import type { SqlClient } from "../../../db/client";
import type { ScheduleRow } from "../../../db/schema/schedules";

export type ScheduleRef = { agent: string; name: string };

/** The fields a schedule.* entry records as before and after. */
export function scheduleView(row: ScheduleRow) {
  return {
    id: row.id,
    agent: row.agent,
    name: row.name,
    cron: row.cron,
    timezone: row.timezone,
    input: row.input,
    missed: row.missed,
    source: row.source,
    paused: row.paused,
  };
}

const COLUMNS = `id, agent, name, cron, timezone, input, missed, source, paused,
  created_by as "createdBy", updated_by as "updatedBy", created_at as "createdAt",
  updated_at as "updatedAt", last_occurrence_at as "lastOccurrenceAt",
  last_task_id as "lastTaskId", next_occurrence_at as "nextOccurrenceAt"`;

export const SCHEDULE_COLUMNS = COLUMNS;

export async function lockSchedule(
  client: SqlClient,
  ref: ScheduleRef,
): Promise<ScheduleRow | undefined> {
  const { rows } = await client.query<ScheduleRow>(
    `select ${COLUMNS} from schedules where agent = $1 and name = $2 for update`,
    [ref.agent, ref.name],
  );
  return rows[0];
}

export const scheduleLabel = (ref: ScheduleRef) => `schedule ${ref.agent}/${ref.name}`;
