// The tasks screen: newest first, optionally one status or agent, keyset-paginated on
// (created_at, id).
// The cursor carries created_at to the microsecond, as PostgreSQL stores it: a millisecond
// JavaScript Date would skip or repeat tasks created within the same millisecond.
import { and, desc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { tasks } from "../../../db/schema";
import { requireScope, type Viewer } from "../../domain/access";
import type { JsonValue } from "../../domain/json";
import { type DeadReason, TASK_STATUSES, type TaskStatus } from "../../domain/task-states";
import type { DbReader } from "./db-reader";

export const TASKS_PAGE_SIZE = 25;

export type TaskListItemDto = {
  id: string;
  agent: string;
  status: TaskStatus;
  deadReason: DeadReason | null;
  attempts: number;
  /** Higher is claimed first among runnable tasks; 0 unless set at enqueue. */
  priority: number;
  /** ISO 8601, UTC. */
  createdAt: string;
  statusChangedAt: string;
  /** First 300 characters of the last error's message, if any. */
  lastError: string | null;
  /** A waiting task's open wait (ctx.waitForEvent): the event, its match, its deadline. */
  waitingFor: { name: string; match: { [key: string]: JsonValue }; deadline: string | null } | null;
  /** A waiting task parked in ctx.join: how many children it joined. */
  joining: number | null;
};

export type TaskPageDto = {
  tasks: TaskListItemDto[];
  /** Pass as `before` to read the next older page; null on the oldest page. */
  olderBefore: string | null;
};

const CURSOR_PATTERN =
  /^((?:19[7-9]\d|[2-9]\d{3})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.(\d{6})Z_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** JavaScript rolls 2025-02-30 over into March; only a real calendar time reads back unchanged. */
function isRealTime(seconds: string): boolean {
  const date = new Date(`${seconds}Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(seconds);
}

const cursorSchema = z.string().transform((value, ctx) => {
  const [, seconds, micros, id] = CURSOR_PATTERN.exec(value) ?? [];
  if (seconds === undefined || micros === undefined || id === undefined || !isRealTime(seconds)) {
    ctx.addIssue({
      code: "custom",
      message: "is not a page position from this screen; use the links below the table.",
    });
    return z.NEVER;
  }
  return { createdAt: `${seconds}.${micros}Z`, id };
});

export const taskSearchSchema = z.object({
  status: z
    .enum(TASK_STATUSES, { error: `must be one of: ${TASK_STATUSES.join(", ")}.` })
    .optional(),
  before: cursorSchema.optional(),
  /** One agent's tasks (not a filter on the screen yet; the API and CLI use it). */
  agent: z.string().trim().min(1).max(200, "must be at most 200 characters.").optional(),
});

export type TaskSearch = z.output<typeof taskSearchSchema>;

export async function listTasks(
  db: DbReader,
  viewer: Viewer | null,
  search: TaskSearch,
  pageSize = TASKS_PAGE_SIZE,
): Promise<TaskPageDto> {
  requireScope(viewer, "tasks:read");
  const rows = await db
    .select({
      id: tasks.id,
      agent: tasks.agent,
      status: tasks.status,
      deadReason: tasks.deadReason,
      attempts: tasks.attempts,
      priority: tasks.priority,
      createdAt: tasks.createdAt,
      statusChangedAt: tasks.statusChangedAt,
      lastError: sql<
        string | null
      >`left(coalesce(${tasks.lastError} ->> 'message', ${tasks.lastError} #>> '{}'), 300)`,
      // One probe of event_waits' (task_id, seq) index per waiting task on the page. The outer
      // row's columns are named with their table: a bare "status" would be the wait's own.
      waitingFor: sql<TaskListItemDto["waitingFor"]>`(
        select json_build_object('name', w.name, 'match', w.match,
                                 'deadline', to_char(w.deadline at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
        from event_waits w
        where "tasks"."status" = 'waiting' and w.task_id = "tasks"."id" and w.status = 'waiting'
        order by w.seq desc limit 1)`,
      joining: sql<number | null>`(
        select jsonb_array_length(s.result -> 'children') from steps s
        where "tasks"."status" = 'waiting' and s.task_id = "tasks"."id" and s.kind = 'join' and s.status = 'started'
        order by s.seq desc limit 1)`,
      cursorAt: sql<string>`to_char(${tasks.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
    })
    .from(tasks)
    .where(
      and(
        search.status === undefined ? undefined : eq(tasks.status, search.status),
        search.agent === undefined ? undefined : eq(tasks.agent, search.agent),
        search.before === undefined
          ? undefined
          : sql`(${tasks.createdAt}, ${tasks.id}) < (${search.before.createdAt}::timestamptz, ${search.before.id}::uuid)`,
      ),
    )
    .orderBy(desc(tasks.createdAt), desc(tasks.id))
    .limit(pageSize + 1);
  const page = rows.slice(0, pageSize);
  const last = page.at(-1);
  return {
    tasks: page.map((r) => ({
      id: r.id,
      agent: r.agent,
      status: r.status,
      deadReason: r.deadReason,
      attempts: r.attempts,
      priority: r.priority,
      createdAt: r.createdAt.toISOString(),
      statusChangedAt: r.statusChangedAt.toISOString(),
      lastError: r.lastError,
      waitingFor: r.waitingFor ?? null,
      joining: r.joining ?? null,
    })),
    olderBefore: rows.length > pageSize && last ? `${last.cursorAt}_${last.id}` : null,
  };
}
