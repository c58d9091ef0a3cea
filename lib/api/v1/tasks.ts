// /api/v1/tasks: list, and one task with its journal, effects, approvals and ledger timeline.
// Enqueueing (POST) lives in enqueue.ts.
import { z } from "zod";
import { getDb } from "../../server/db";
import { getTaskDetail } from "../../server/queries/get-task-detail";
import { timelineSearchSchema } from "../../server/queries/list-task-timeline";
import { listTasks, taskSearchSchema } from "../../server/queries/list-tasks";
import { defineEndpoint } from "../endpoint";
import { ApiProblem } from "../problems";
import { taskDetailSchema, taskIdParam, taskListItemSchema } from "./schemas";

const listQuery = z
  .object({
    status: taskSearchSchema.shape.status,
    agent: taskSearchSchema.shape.agent,
    cursor: taskSearchSchema.shape.before.describe("nextCursor from the previous page"),
    limit: z.coerce
      .number({ message: "must be a number" })
      .int("must be a whole number")
      .min(1, "must be at least 1")
      .max(200, "must be at most 200")
      .default(50),
  })
  .strict();

export const listTasksEndpoint = defineEndpoint({
  method: "GET",
  path: "/tasks",
  operationId: "listTasks",
  tag: "Tasks",
  summary: "List tasks, newest first",
  scope: "tasks:read",
  query: listQuery,
  response: z.object({
    tasks: z.array(taskListItemSchema),
    nextCursor: z.string().nullable().describe("Pass as `cursor` for the next (older) page"),
  }),
  problems: [],
  handle: async ({ query, viewer }) => {
    const page = await listTasks(
      getDb(),
      viewer,
      { status: query.status, agent: query.agent, before: query.cursor },
      query.limit,
    );
    return { tasks: page.tasks, nextCursor: page.olderBefore };
  },
});

export const getTaskEndpoint = defineEndpoint({
  method: "GET",
  path: "/tasks/{id}",
  operationId: "getTask",
  tag: "Tasks",
  summary: "One task with its steps, effects, approvals and ledger timeline",
  description:
    "`timeline` holds the whole stream, or for a long one its first and last entries with the gap counted; `from` reads a window of it. `task.version` is what review commands send back.",
  scope: "tasks:read",
  params: taskIdParam,
  query: z.object({ from: timelineSearchSchema.shape.from }).strict(),
  response: taskDetailSchema,
  problems: ["not-found"],
  handle: async ({ params, query, viewer }) => {
    const detail = await getTaskDetail(getDb(), viewer, params.id, { from: query.from });
    if (!detail) throw new ApiProblem("not-found", `no task ${params.id}`);
    return detail;
  },
});

export { enqueueTaskEndpoint } from "./enqueue";
