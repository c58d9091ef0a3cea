// The schedules screen, `agent-ledger schedules list` and GET /api/v1/schedules: each schedule
// with its next and last occurrence and the last occurrence's task and its state.
import { asc, eq } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { schedules, tasks } from "../../../db/schema";
import { requireScope, type Viewer } from "../../domain/access";
import { type MissedPolicy, nextOccurrence, type ScheduleSource } from "../../domain/schedules";
import type { TaskStatus } from "../../domain/task-states";

export type ScheduleDto = {
  id: string;
  agent: string;
  name: string;
  cron: string;
  timezone: string;
  input: unknown;
  missed: MissedPolicy;
  source: ScheduleSource;
  paused: boolean;
  createdBy: string;
  updatedBy: string;
  /** ISO 8601, UTC; null until a worker running the agent ticked it. */
  nextOccurrenceAt: string | null;
  /** The latest occurrence handled (enqueued or skipped). */
  lastOccurrenceAt: string | null;
  lastTask: { id: string; status: TaskStatus } | null;
};

/** Everyone who can read tasks sees the schedules; changing them needs schedules:write. */
export async function listSchedules(
  db: Pick<Db, "select">,
  viewer: Viewer | null,
): Promise<ScheduleDto[]> {
  requireScope(viewer, "tasks:read");
  return readSchedules(db);
}

/** Unchecked: for the CLI, whose operator already holds the database credentials. */
export async function readSchedules(db: Pick<Db, "select">): Promise<ScheduleDto[]> {
  const rows = await db
    .select({ s: schedules, taskStatus: tasks.status })
    .from(schedules)
    .leftJoin(tasks, eq(tasks.id, schedules.lastTaskId))
    .orderBy(asc(schedules.agent), asc(schedules.name));
  return rows.map(({ s, taskStatus }) => ({
    id: s.id,
    agent: s.agent,
    name: s.name,
    cron: s.cron,
    timezone: s.timezone,
    input: s.input,
    missed: s.missed,
    source: s.source,
    paused: s.paused,
    createdBy: s.createdBy,
    updatedBy: s.updatedBy,
    // Before any worker ticked it (an admin's new schedule), the cron's next one from now.
    nextOccurrenceAt: s.paused
      ? null
      : ((s.nextOccurrenceAt ?? nextOccurrence(s.cron, s.timezone, new Date()))?.toISOString() ??
        null),
    lastOccurrenceAt: s.lastOccurrenceAt?.toISOString() ?? null,
    lastTask: s.lastTaskId && taskStatus ? { id: s.lastTaskId, status: taskStatus } : null,
  }));
}
