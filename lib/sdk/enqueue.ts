// enqueue from the user's own code. With an Agent (not just its name) the input is checked
// against its own zod schema first, so a bad input fails here with zod's message instead of in
// the worker; the command then checks it against the schema the workers published, if they
// have. An agent no worker has published yet is enqueued for the worker that will: the code
// that names it deploys it. A key makes enqueueing idempotent: the same key returns the first task.
import type pg from "pg";
import { operator } from "../domain/access";
import { prioritySchema } from "../domain/priority";
import { type TaskPolicy, taskPolicySchema } from "../domain/retry-policy";
import { parseTraceparent } from "../domain/traceparent";
import { describeIssues } from "../domain/zod-issues";
import { enqueueTask } from "../server/commands/enqueue-task";
import { traceparentOf } from "../server/tracing";
import { concurrencyKeyOf, isKeyed } from "./concurrency-key";
import type { Agent } from "./define";

export type EnqueueOptions = {
  agent: Agent | string;
  input: unknown;
  key?: string;
  runAt?: Date;
  /** Higher is claimed first among the tasks runnable now: -1000 to 1000, default 0. */
  priority?: number;
  policy?: TaskPolicy;
  /** Recorded in the ledger as who enqueued it. */
  actor?: string;
  /**
   * The W3C traceparent whose trace the task's attempts join (docs/tracing.md); default: the
   * active OpenTelemetry span's, if any. An invalid one is ignored.
   */
  traceparent?: string;
};

export class InvalidTaskInputError extends Error {
  override name = "InvalidTaskInputError";
}

/**
 * What is wrong with a task's own retry policy, or null. The worker would ignore a policy it
 * cannot apply (a timeout past setTimeout's cap, Infinity, a negative); the caller hears it here,
 * as the HTTP API's caller and the policy form do.
 */
export function policyProblem(agent: string, policy: unknown): string | null {
  if (policy === undefined) return null;
  const parsed = taskPolicySchema.safeParse(policy);
  return parsed.success
    ? null
    : `invalid retry policy for ${agent}: ${describeIssues(parsed.error)}`;
}

/**
 * The concurrency key of a keyed agent's task, computed here when the caller hands over the
 * Agent (its key function is code the dashboard and the API never have); undefined otherwise,
 * and a worker running the agent computes it. A key function that fails is refused here.
 */
export function concurrencyKeyFor(
  agent: Agent | string,
  input: unknown,
): { key: string | undefined } | { problem: string } {
  if (typeof agent === "string" || !isKeyed(agent)) return { key: undefined };
  const outcome = concurrencyKeyOf(agent, input);
  return outcome.ok ? { key: outcome.key } : { problem: outcome.problem };
}

/** What is wrong with a task's priority, or null. */
export function priorityProblem(agent: string, priority: unknown): string | null {
  if (priority === undefined) return null;
  const parsed = prioritySchema.safeParse(priority);
  return parsed.success
    ? null
    : `invalid priority for ${agent}: ${parsed.error.issues.map((i) => i.message).join("; ")}`;
}

export async function enqueue(
  pool: pg.Pool,
  opts: EnqueueOptions,
): Promise<{ taskId: string; created: boolean }> {
  if (typeof opts.agent !== "string") {
    const parsed = opts.agent.input.safeParse(opts.input);
    if (!parsed.success) {
      throw new InvalidTaskInputError(
        `invalid input for ${opts.agent.name}: ${describeIssues(parsed.error)}`,
      );
    }
  }
  const agent = typeof opts.agent === "string" ? opts.agent : opts.agent.name;
  const wrongPolicy = policyProblem(agent, opts.policy);
  if (wrongPolicy) throw new InvalidTaskInputError(wrongPolicy);
  const wrongPriority = priorityProblem(agent, opts.priority);
  if (wrongPriority) throw new InvalidTaskInputError(wrongPriority);
  const keyed = concurrencyKeyFor(opts.agent, opts.input);
  if ("problem" in keyed) throw new InvalidTaskInputError(keyed.problem);
  const result = await enqueueTask(pool, operator(opts.actor ?? "library"), {
    agent,
    input: opts.input,
    key: opts.key,
    runAt: opts.runAt,
    priority: opts.priority,
    policy: opts.policy,
    concurrencyKey: keyed.key,
    unpublished: "enqueue",
    traceparent:
      opts.traceparent === undefined ? traceparentOf() : parseTraceparent(opts.traceparent),
  });
  if (result.ok) return { taskId: result.value.taskId, created: result.value.created };
  if (result.code === "invalid") {
    throw new InvalidTaskInputError(`invalid input for ${agent}: ${describeIssues(result.issues)}`);
  }
  throw new Error(`enqueue ${agent}: ${result.message}`);
}
