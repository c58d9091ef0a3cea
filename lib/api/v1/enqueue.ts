// POST /api/v1/tasks: enqueue one task (an object body) or up to MAX_TASKS_PER_REQUEST (an array
// body), idempotent with an Idempotency-Key. An array is all or nothing: every item is checked
// first and one refused item refuses the request, each bad item named by its index, so a client
// that retries the same array never has to work out which half went in.
import { z } from "zod";
import { principalOf, type Viewer } from "../../domain/access";
import { isoInstant } from "../../domain/instant";
import { prioritySchema } from "../../domain/priority";
import { taskPolicySchema } from "../../domain/retry-policy";
import { issueFields } from "../../domain/zod-issues";
import { env } from "../../env";
import {
  type EnqueueRefusal,
  type EnqueueRequest,
  enqueueTasks,
  type ItemRefusal,
} from "../../server/commands/enqueue-tasks";
import { requestFingerprint, runIdempotent } from "../../server/commands/idempotency";
import { getPool } from "../../server/db";
import { traceHeaders } from "../../server/tracing";
import { BODY_PROBLEMS, defineEndpoint, Reply } from "../endpoint";
import { ApiProblem } from "../problems";
import { taskStatusSchema } from "./schemas";

/** Tasks one request may enqueue; more is 413 (send them in several requests). */
export const MAX_TASKS_PER_REQUEST = 1000;

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
    priority: prioritySchema
      .optional()
      .describe("Higher is claimed first among the tasks runnable now: -1000 to 1000 (default 0)"),
    policy: taskPolicySchema
      .strict()
      .optional()
      .describe("This task's own retry policy: overrides the agent's and the global one"),
  })
  .strict();
type OneBody = z.output<typeof enqueueBodySchema>;

/**
 * One task or an array of them. An array's items are parsed one by one first, so a bad item is
 * reported at its index ("3.agent") rather than as the union's "Invalid input"; an array over
 * the limit is refused before any item is parsed.
 */
export const enqueueRequestSchema = z.preprocess(
  (body, ctx) => {
    if (!Array.isArray(body)) return body;
    if (body.length > MAX_TASKS_PER_REQUEST) {
      // Thrown through zod to the endpoint wrapper, which answers it: 413, not a parse error.
      throw new ApiProblem(
        "payload-too-large",
        `at most ${MAX_TASKS_PER_REQUEST} tasks per request; this one has ${body.length}: send them in several requests`,
      );
    }
    for (const [index, item] of body.entries()) {
      const parsed = enqueueBodySchema.safeParse(item);
      if (parsed.success) continue;
      for (const issue of parsed.error.issues) {
        ctx.addIssue({ code: "custom", path: [index, ...issue.path], message: issue.message });
      }
    }
    return body;
  },
  z.union(
    [
      enqueueBodySchema,
      z
        .array(enqueueBodySchema)
        .min(1, "must hold at least one task")
        .meta({ maxItems: MAX_TASKS_PER_REQUEST })
        .describe(
          `Up to ${MAX_TASKS_PER_REQUEST} tasks, enqueued all or none: one refused item refuses the request`,
        ),
    ],
    { error: "must be a task (an object) or an array of tasks" },
  ),
);

export const enqueuedSchema = z.object({
  id: z.string(),
  agent: z.string(),
  status: taskStatusSchema,
  createdBy: z.string(),
  location: z.string().describe("Where to read the task: /api/v1/tasks/{id}"),
});
type Enqueued = z.infer<typeof enqueuedSchema>;

export const enqueuedManySchema = z.object({
  tasks: z.array(enqueuedSchema).describe("One per item of the request, in its order"),
});
type EnqueuedMany = z.infer<typeof enqueuedManySchema>;

type Answer = Enqueued | EnqueuedMany;
type Stored = { status: number; body: Answer; headers: Record<string, string> };

/** Whose keys these are: per user or token id, so a renamed token keeps its keys. */
function keyOwner(viewer: Viewer): string {
  return `${viewer.kind}:${viewer.id}`;
}

/** An input refusal's field errors, under `prefix` ("" for one task, "3." for item 3). */
function inputErrors(refusal: EnqueueRefusal, prefix: string) {
  if (refusal.code !== "invalid") {
    return [{ in: "body", path: `${prefix}agent`, message: refusal.message }];
  }
  return Object.entries(issueFields(refusal.issues, "input.")).map(([path, message]) => ({
    in: "body",
    path: `${prefix}${path === "(input)" ? "input" : path}`,
    message,
  }));
}

/** A one-task refusal as the problem clients have always been answered with. */
function problemOf(refusal: EnqueueRefusal): ApiProblem {
  switch (refusal.code) {
    case "not_found":
      return new ApiProblem("unknown-agent", refusal.message, { known: refusal.known });
    case "invalid": {
      const errors = inputErrors(refusal, "");
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

/** A batch refusal: one invalid-task-input naming every bad item, `known` when an agent is unknown. */
function batchProblemOf(items: ItemRefusal[], total: number): ApiProblem {
  const errors = items.flatMap((i) => inputErrors(i.refusal, `${i.index}.`));
  const known = items.find((i) => i.refusal.code === "not_found")?.refusal;
  const shown = errors.slice(0, 5).map((e) => `${e.path}: ${e.message}`);
  return new ApiProblem(
    "invalid-task-input",
    `${items.length} of ${total} tasks refused, nothing was enqueued: ${shown.join("; ")}${errors.length > 5 ? `; and ${errors.length - 5} more` : ""}`,
    { errors, ...(known && known.code === "not_found" ? { known: known.known } : {}) },
  );
}

const requestOf = (body: OneBody, traceparent: string | undefined): EnqueueRequest => ({
  agent: body.agent,
  input: body.input,
  runAt: body.runAt,
  priority: body.priority,
  policy: body.policy,
  traceparent,
});

/** Enqueues through the command (in `client`'s transaction when given one) and shapes the reply. */
async function enqueueFor(
  db: Parameters<typeof enqueueTasks>[0],
  body: OneBody | OneBody[],
  viewer: Viewer,
  traceparent: string | undefined,
): Promise<Stored> {
  const principal = principalOf(viewer);
  const many = Array.isArray(body);
  const items = many ? body : [body];
  const result = await enqueueTasks(
    db,
    principal,
    items.map((item) => requestOf(item, traceparent)),
  );
  // Thrown, so that on the Idempotency-Key path the transaction rolls back and the key stays free.
  if (!result.ok) {
    if (result.code === "forbidden") throw new ApiProblem("forbidden", result.message);
    const [first] = result.items;
    if (!many && first) throw problemOf(first.refusal);
    throw batchProblemOf(result.items, items.length);
  }
  const tasks = result.value.map((v, i) => ({
    id: v.taskId,
    agent: items[i]?.agent ?? "",
    status: "queued" as const,
    createdBy: principal.actor,
    location: `/api/v1/tasks/${v.taskId}`,
  }));
  const [task] = tasks;
  if (!many && task) return { status: 201, body: task, headers: { location: task.location } };
  return { status: 201, body: { tasks }, headers: {} };
}

export const enqueueTaskEndpoint = defineEndpoint({
  method: "POST",
  path: "/tasks",
  operationId: "enqueueTask",
  tag: "Tasks",
  summary: "Enqueue a task, or many",
  description: `Starts an agent. The body is one task, answered with that task, or an array of up to ${MAX_TASKS_PER_REQUEST} tasks, answered with \`{"tasks": [...]}\` in the array's order (more than ${MAX_TASKS_PER_REQUEST} is 413; the body is also capped at 1 MiB). An array is all or nothing: every item is checked as a single task is, and if any is refused nothing is enqueued and the 422 \`invalid-task-input\` lists every bad item in \`errors\`, each \`path\` starting with the item's index (\`3.input.to\`, \`5.agent\` for an agent no worker published, with \`known\` listing the agents that are); a malformed item is a 400 \`invalid-request\` with the same kind of paths. With an \`Idempotency-Key\` header the request is idempotent (IETF draft "The Idempotency-Key HTTP Header Field"): the same key with the same body returns the first response (the same task or tasks) with \`Idempotent-Replayed: true\`; the same key with a different body is refused with 422 and both fingerprints; while the first request with a key is still running, another with that key gets 409 with \`Retry-After\`. One key covers a whole array. Keys are remembered per caller for IDEMPOTENCY_KEY_RETENTION_HOURS (default 24 h) after the first request; after that the key is new again. A refused request (4xx) does not use up its key.`,
  scope: "tasks:enqueue",
  body: enqueueRequestSchema,
  requestHeaders: [
    {
      name: "Idempotency-Key",
      description:
        "Makes the request idempotent: 1 to 255 printable ASCII characters (a UUID is a good key), optionally quoted",
      schema: idempotencyKeyHeader,
    },
    {
      name: "traceparent",
      description:
        "W3C Trace Context: the tasks' attempts, model and tool calls are spans in this trace when the server exports traces (docs/tracing.md); an invalid value is ignored",
      // Never refused: a receiver ignores a traceparent it cannot parse (W3C Trace Context).
      schema: z.string().optional(),
    },
  ],
  response: z.union([enqueuedSchema, enqueuedManySchema]),
  success: {
    201: "Enqueued: the task, or for an array body `tasks` (or, with `Idempotent-Replayed: true`, the first response for this key)",
  },
  responseHeaders: {
    Location: "The new task: /api/v1/tasks/{id} (a one-task body only)",
    "Idempotent-Replayed": "`true` when this is the stored response of an earlier request",
  },
  problems: [
    ...BODY_PROBLEMS,
    "unknown-agent",
    "invalid-task-input",
    "idempotency-key-in-use",
    "idempotency-key-reused",
  ],
  handle: async ({ body, viewer, request, span }) => {
    // The tasks' attempts are the request span's children (their traceparent is its), so a
    // trace followed from the caller goes through here into the worker. With tracing off the
    // span is the caller's own (a no-op keeps its parent's ids): the tasks store that.
    const reply = await enqueueReply(body, viewer, request, traceHeaders(span).traceparent);
    const tasks = "tasks" in reply.body ? reply.body.tasks : [reply.body];
    span.setAttribute(
      "agent_ledger.task_id",
      tasks.map((t) => t.id),
    );
    return reply;
  },
});

async function enqueueReply(
  body: OneBody | OneBody[],
  viewer: Viewer,
  request: Request,
  traceparent: string | undefined,
): Promise<Reply<Answer>> {
  const key = idempotencyKeyHeader.parse(request.headers.get("idempotency-key") ?? undefined);
  const pool = getPool();
  if (!key) {
    const fresh = await enqueueFor(pool, body, viewer, traceparent);
    return new Reply<Answer>(fresh.body, fresh.status, fresh.headers);
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
    (client) => enqueueFor(client, body, viewer, traceparent),
  );
  switch (outcome.kind) {
    case "fresh":
      return new Reply(outcome.body as Answer, outcome.status, outcome.headers ?? {});
    case "replay":
      return new Reply(outcome.body as Answer, outcome.status, {
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
}
