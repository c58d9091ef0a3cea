// /api/v1/tasks: enqueue (idempotent with an Idempotency-Key), list, and one task with its
// journal, effects, approvals and ledger timeline.
import { z } from "zod";
import { principalOf, type Viewer } from "../../domain/access";
import { isoInstant } from "../../domain/instant";
import { partialRetryPolicySchema } from "../../domain/retry-policy";
import { issueFields } from "../../domain/zod-issues";
import { env } from "../../env";
import { type EnqueueRefusal, enqueueTask } from "../../server/commands/enqueue-task";
import { requestFingerprint, runIdempotent } from "../../server/commands/idempotency";
import { getDb, getPool } from "../../server/db";
import { getTaskDetail } from "../../server/queries/get-task-detail";
import { timelineSearchSchema } from "../../server/queries/list-task-timeline";
import { listTasks, taskSearchSchema } from "../../server/queries/list-tasks";
import { BODY_PROBLEMS, defineEndpoint, Reply } from "../endpoint";
import { ApiProblem } from "../problems";
import { taskDetailSchema, taskIdParam, taskListItemSchema, taskStatusSchema } from "./schemas";

/** Printable ASCII, as a Structured Field string (quotes optional). */
const IDEMPOTENCY_KEY = /^"?([\x20-\x21\x23-\x7e]{1,255})"?$/;

export const idempotencyKeyHeader = z
  .string()
  .regex(IDEMPOTENCY_KEY, "must be 1 to 255 printable ASCII characters, optionally in quotes")
  .transform((v) => IDEMPOTENCY_KEY.exec(v)?.[1] ?? v)
  .optional();

export const enqueueBodySchema = z
  .object({
    agent: z
      .string({ message: "is required: an agent name (GET /api/v1/agents lists them)" })
      .trim()
      .min(1, "is required")
      .max(200, "must be at most 200 characters"),
    input: z
      .json({ message: "must be JSON" })
      .default({})
      .describe("Checked against the agent's input schema"),
    runAt: isoInstant.optional().describe("Not before this time (default: now)"),
    policy: partialRetryPolicySchema
      .strict()
      .optional()
      .describe("This task's own retry policy: overrides the agent's and the global one"),
  })
  .strict();

export const enqueuedSchema = z.object({
  id: z.string(),
  agent: z.string(),
  status: taskStatusSchema,
  createdBy: z.string(),
  location: z.string().describe("Where to read the task: /api/v1/tasks/{id}"),
});
type Enqueued = z.infer<typeof enqueuedSchema>;

type Stored = { status: number; body: Enqueued; headers: Record<string, string> };

/** Whose keys these are: per user or token id, so a renamed token keeps its keys. */
function keyOwner(viewer: Viewer): string {
  return `${viewer.kind}:${viewer.id}`;
}

/** A refusal as the problem clients have always been answered with. */
function problemOf(refusal: EnqueueRefusal): ApiProblem {
  switch (refusal.code) {
    case "not_found":
      return new ApiProblem("unknown-agent", refusal.message, { known: refusal.known });
    case "invalid": {
      const errors = Object.entries(issueFields(refusal.issues, "input.")).map(
        ([path, message]) => ({
          in: "body",
          path: path === "(input)" ? "input" : path,
          message,
        }),
      );
      return new ApiProblem(
        "invalid-task-input",
        errors.map((e) => `${e.path}: ${e.message}`).join("; "),
        { errors },
      );
    }
    case "forbidden":
      return new ApiProblem("forbidden", refusal.message);
  }
}

/** Enqueues through the command (in `client`'s transaction when given one) and shapes the reply. */
async function enqueueFor(
  db: Parameters<typeof enqueueTask>[0],
  body: z.output<typeof enqueueBodySchema>,
  viewer: Viewer,
): Promise<Stored> {
  const principal = principalOf(viewer);
  const result = await enqueueTask(db, principal, {
    agent: body.agent,
    input: body.input,
    runAt: body.runAt,
    policy: body.policy,
  });
  // Thrown, so that on the Idempotency-Key path the transaction rolls back and the key stays free.
  if (!result.ok) throw problemOf(result);
  const { taskId } = result.value;
  const location = `/api/v1/tasks/${taskId}`;
  return {
    status: 201,
    body: { id: taskId, agent: body.agent, status: "queued", createdBy: principal.actor, location },
    headers: { location },
  };
}

export const enqueueTaskEndpoint = defineEndpoint({
  method: "POST",
  path: "/tasks",
  operationId: "enqueueTask",
  tag: "Tasks",
  summary: "Enqueue a task",
  description: `Starts an agent. With an \`Idempotency-Key\` header the request is idempotent (IETF draft "The Idempotency-Key HTTP Header Field"): the same key with the same body returns the first response (the same task) with \`Idempotent-Replayed: true\`; the same key with a different body is refused with 422 and both fingerprints; while the first request with a key is still running, another with that key gets 409 with \`Retry-After\`. Keys are remembered per caller for IDEMPOTENCY_KEY_RETENTION_HOURS (default 24 h) after the first request; after that the key is new again. A refused request (4xx) does not use up its key.`,
  scope: "tasks:enqueue",
  body: enqueueBodySchema,
  requestHeaders: [
    {
      name: "Idempotency-Key",
      description:
        "Makes the request idempotent: 1 to 255 printable ASCII characters (a UUID is a good key), optionally quoted",
      schema: idempotencyKeyHeader,
    },
  ],
  response: enqueuedSchema,
  success: {
    201: "Enqueued (or, with `Idempotent-Replayed: true`, the first response for this key)",
  },
  responseHeaders: {
    Location: "The new task: /api/v1/tasks/{id}",
    "Idempotent-Replayed": "`true` when this is the stored response of an earlier request",
  },
  problems: [
    ...BODY_PROBLEMS,
    "unknown-agent",
    "invalid-task-input",
    "idempotency-key-in-use",
    "idempotency-key-reused",
  ],
  handle: async ({ body, viewer, request }) => {
    const key = idempotencyKeyHeader.parse(request.headers.get("idempotency-key") ?? undefined);
    const pool = getPool();
    if (!key) {
      const fresh = await enqueueFor(pool, body, viewer);
      return new Reply(fresh.body, fresh.status, fresh.headers);
    }
    const outcome = await runIdempotent(
      pool,
      {
        principal: keyOwner(viewer),
        key,
        operation: "POST /api/v1/tasks",
        fingerprint: requestFingerprint(body),
        retentionMs: env().IDEMPOTENCY_KEY_RETENTION_HOURS * 3_600_000,
      },
      (client) => enqueueFor(client, body, viewer),
    );
    switch (outcome.kind) {
      case "fresh":
        return new Reply(outcome.body as Enqueued, outcome.status, outcome.headers ?? {});
      case "replay":
        return new Reply(outcome.body as Enqueued, outcome.status, {
          ...outcome.headers,
          "idempotent-replayed": "true",
        });
      case "mismatch":
        throw new ApiProblem(
          "idempotency-key-reused",
          `the key "${key}" was first used with a different body`,
          { fingerprint: outcome.fingerprint, storedFingerprint: outcome.storedFingerprint },
        );
      case "in_flight":
        throw new ApiProblem(
          "idempotency-key-in-use",
          `a request with the key "${key}" is still running; retry shortly`,
          undefined,
          { "retry-after": "1" },
        );
    }
  },
});

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
