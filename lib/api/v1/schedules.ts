// GET /api/v1/schedules: every cron schedule, with its next run and its last occurrence's task.
import { z } from "zod";
import { MISSED_POLICIES, SCHEDULE_SOURCES } from "../../domain/schedules";
import { TASK_STATUSES } from "../../domain/task-states";
import { getDb } from "../../server/db";
import { listSchedules } from "../../server/queries/list-schedules";
import { defineEndpoint } from "../endpoint";

const instant = z.string().datetime({ offset: true });

export const scheduleSchema = z.object({
  id: z.string().uuid(),
  agent: z.string(),
  name: z.string(),
  cron: z.string().describe("5 fields, or 6 with seconds first"),
  timezone: z.string().describe("The IANA time zone the expression is read in"),
  input: z.unknown(),
  missed: z.enum(MISSED_POLICIES),
  source: z
    .enum(SCHEDULE_SOURCES)
    .describe("code: declared by the agent; admin: added by a person"),
  paused: z.boolean(),
  createdBy: z.string(),
  updatedBy: z.string(),
  nextOccurrenceAt: instant.nullable().describe("null while paused or not yet ticked"),
  lastOccurrenceAt: instant
    .nullable()
    .describe("The latest occurrence handled: enqueued, or skipped by the missed policy"),
  lastTask: z.object({ id: z.string().uuid(), status: z.enum(TASK_STATUSES) }).nullable(),
});

export const listSchedulesEndpoint = defineEndpoint({
  method: "GET",
  path: "/schedules",
  operationId: "listSchedules",
  tag: "Agents",
  summary: "Cron schedules per agent, with their next run and last task",
  description:
    "From the agents' code (published by each worker at start) and added by admins. Each occurrence is enqueued once, under the key `schedule:<id>:<occurrence>`.",
  scope: "tasks:read",
  query: z.object({}).strict(),
  response: z.object({ schedules: z.array(scheduleSchema) }),
  problems: [],
  handle: async ({ viewer }) => ({ schedules: await listSchedules(getDb(), viewer) }),
});
