// enqueue from the user's own code. With an Agent (not just its name) the input is checked
// against its schema first, so a bad input fails here with zod's message instead of in the
// worker. A key makes enqueueing idempotent: the same key returns the first task.
import type pg from "pg";
import type { PartialRetryPolicy } from "../domain/retry-policy";
import { describeIssues } from "../domain/zod-issues";
import { enqueueTaskWith } from "../server/commands/enqueue-task";
import type { Agent } from "./define";

export type EnqueueOptions = {
  agent: Agent | string;
  input: unknown;
  key?: string;
  runAt?: Date;
  policy?: PartialRetryPolicy;
  /** Recorded in the ledger as who enqueued it. */
  actor?: string;
};

export class InvalidTaskInputError extends Error {
  override name = "InvalidTaskInputError";
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
  return enqueueTaskWith(pool, {
    agent,
    input: opts.input,
    key: opts.key,
    runAt: opts.runAt,
    policy: opts.policy,
    actor: opts.actor ?? "library",
  });
}
