// /api/v1/tasks: enqueue (idempotent with an Idempotency-Key), list, and one task with its
// journal, effects, approvals and ledger timeline.
import { z } from "zod";
import { type SqlClient, withTransaction } from "../../../db/client";
import { actorOf, type Viewer } from "../../domain/access";
import { isoInstant } from "../../domain/instant";
import { partialRetryPolicySchema } from "../../domain/retry-policy";
import { issueFields } from "../../domain/zod-issues";
import { env } from "../../env";
import { enqueueTask } from "../../server/commands/enqueue-task";
import { requestFingerprint, runIdempotent } from "../../server/commands/idempotency";
import { getDb, getPool } from "../../server/db";
import { getTaskDetail } from "../../server/queries/get-task-detail";
import { agentNames, findAgent } from "../../server/queries/list-agents";
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

function principalOf(viewer: Viewer): string {
  return `${viewer.kind}:${viewer.id}`;
}

/** Compiled input schemas by their JSON text: agents are few, and compiling is not free. */
const compiled = new Map<string, z.ZodType | null>();

function compile(inputSchema: Record<string, unknown>): z.ZodType | null {
  const text = JSON.stringify(inputSchema);
  let schema = compiled.get(text);
  if (schema === undefined) {
    try {
      schema = z.fromJSONSchema(inputSchema as Parameters<typeof z.fromJSONSchema>[0]);
    } catch {
      schema = null;
    }
    if (compiled.size >= 500) compiled.clear();
    compiled.set(text, schema);
  }
  return schema;
}

/** The input against the agent's published JSON Schema; a schema zod cannot read is not enforced. */
function checkInput(inputSchema: Record<string, unknown>, input: unknown): void {
  const schema = compile(inputSchema);
  if (!schema) return;
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const errors = Object.entries(issueFields(parsed.error, "input.")).map(([path, message]) => ({
      in: "body",
      path: path === "(input)" ? "input" : path,
      message,
    }));
    throw new ApiProblem(
      "invalid-task-input",
      errors.map((e) => `${e.path}: ${e.message}`).join("; "),
      { errors },
    );
  }
}

async function enqueueIn(
  client: SqlClient,
  body: z.output<typeof enqueueBodySchema>,
  viewer: Viewer,
): Promise<Stored> {
  const agent = await findAgent(client, body.agent);
  if (!agent) {
    const known = await agentNames(client);
    throw new ApiProblem(
      "unknown-agent",
      `no worker has published an agent named "${body.agent}"; known: ${known.length ? known.join(", ") : "none yet (start a worker)"}`,
      { known },
    );
  }
  checkInput(agent.inputSchema, body.input);
  const actor = actorOf(viewer);
  const { taskId } = await enqueueTask(client, {
    agent: agent.name,
    input: body.input,
    runAt: body.runAt,
    policy: body.policy,
    actor,
  });
  const location = `/api/v1/tasks/${taskId}`;
  return {
    status: 201,
    body: { id: taskId, agent: agent.name, status: "queued", createdBy: actor, location },
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
      const fresh = await withTransaction(pool, (client) => enqueueIn(client, body, viewer));
      return new Reply(fresh.body, fresh.status, fresh.headers);
    }
    const outcome = await runIdempotent(
      pool,
      {
        principal: principalOf(viewer),
        key,
        operation: "POST /api/v1/tasks",
        fingerprint: requestFingerprint(body),
        retentionMs: env().IDEMPOTENCY_KEY_RETENTION_HOURS * 3_600_000,
      },
      (client) => enqueueIn(client, body, viewer),
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
