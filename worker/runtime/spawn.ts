// ctx.spawn: a child task enqueued as an intent-keyed write of its parent. The child's enqueue
// key is derived from (parent, agent, intent), where the intent is the caller's key or else the
// input, so an attempt that dies between the enqueue and its journal entry, a retry, or a
// reviewer's replay of the parent enqueues the same child again and gets the first one back.
import { z } from "zod";
import { operator } from "../../lib/domain/access";
import { sha256Hex } from "../../lib/domain/hash";
import { canonicalJson, type JsonValue, toJsonValue } from "../../lib/domain/json";
import { prioritySchema } from "../../lib/domain/priority";
import { describeIssues } from "../../lib/domain/zod-issues";
import type { Agent, ChildTask, SpawnOptions } from "../../lib/sdk/define";
import { NonRetryableError } from "../../lib/sdk/errors";
import { enqueueTask } from "../../lib/server/commands/enqueue-task";
import { faultPoint } from "../../lib/server/fault-points";
import type { AttemptScope } from "./context";

const spawnOptionsSchema = z
  .object({
    key: z.string().min(1, "must not be empty").max(200, "must be at most 200 characters"),
    priority: prioritySchema,
  })
  .partial()
  .strict();

/** The child's enqueue key: the same parent, agent and intent give the same key. */
export function spawnKey(parentId: string, agent: string, intent: JsonValue): string {
  return `spawn:${sha256Hex(canonicalJson([parentId, agent, intent]))}`;
}

export async function spawnChild(
  scope: AttemptScope,
  agent: Agent | string,
  input: unknown,
  options: SpawnOptions | undefined,
  /** The spawn span's {traceparent}: the child's attempts are its children (tracing.ts). */
  trace: { traceparent?: string } = {},
): Promise<ChildTask> {
  const name = typeof agent === "string" ? agent : agent.name;
  const opts = spawnOptionsSchema.safeParse(options ?? {});
  if (!opts.success) {
    throw new NonRetryableError(`spawn ${name}: ${describeIssues(opts.error, "options.")}`);
  }
  if (typeof agent !== "string") {
    const parsed = agent.input.safeParse(input);
    if (!parsed.success) {
      throw new NonRetryableError(`spawn ${name}: invalid input: ${describeIssues(parsed.error)}`);
    }
  }
  let value: JsonValue;
  try {
    value = toJsonValue(input, "input");
  } catch (err) {
    throw new NonRetryableError(`spawn ${name}: ${err instanceof Error ? err.message : err}`);
  }
  const intent: JsonValue = opts.data.key !== undefined ? { key: opts.data.key } : { input: value };
  const outcome = await enqueueTask(scope.pool, operator(`worker:${scope.worker}`), {
    agent: name,
    input: value,
    key: spawnKey(scope.taskId, name, intent),
    priority: opts.data.priority,
    parent: scope.taskId,
    traceparent: trace.traceparent,
    // The parent's code names the agents it deploys, as a library caller's does.
    unpublished: "enqueue",
  });
  if (!outcome.ok) throw new NonRetryableError(`spawn ${name}: ${outcome.message}`);
  faultPoint("spawn.enqueued");
  return { taskId: outcome.value.taskId, agent: name };
}
