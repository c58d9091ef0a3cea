// An agent's concurrency key for one task's input (issue 21): what `concurrency.key(input)` says,
// checked. The key is agent code, so only a worker running the agent or a library enqueue given
// the Agent can compute it; the refusal says what was wrong, for the task's dead letter.
import { describeIssues } from "../domain/zod-issues";
import type { Agent } from "./define";

/** Longest key the tasks table accepts (tasks_concurrency_key_check). */
export const CONCURRENCY_KEY_MAX = 200;

/**
 * Stored for a task whose key function failed, in place of a key: no key function may return it
 * (keys are 1 to 200 characters), and the task's attempt dead-letters it with the reason.
 */
export const FAILED_CONCURRENCY_KEY = "";

export type ConcurrencyKeyOutcome = { ok: true; key: string } | { ok: false; problem: string };

/** True when the agent's limit counts per key rather than over all its tasks. */
export function isKeyed(agent: Agent): boolean {
  return typeof agent.concurrency?.key === "function";
}

/**
 * The key of a keyed agent's task. An input the agent's schema refuses has no key; its attempt
 * dead-letters it for the input (run-attempt.ts says so before it looks at the key).
 */
export function concurrencyKeyOf(agent: Agent, input: unknown): ConcurrencyKeyOutcome {
  const keyFn = agent.concurrency?.key;
  if (typeof keyFn !== "function") {
    return { ok: false, problem: `agent ${agent.name} declares no concurrency key` };
  }
  const parsed = agent.input.safeParse(input);
  if (!parsed.success) {
    return { ok: false, problem: `invalid task input: ${describeIssues(parsed.error)}` };
  }
  let key: unknown;
  try {
    key = keyFn(parsed.data);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return {
      ok: false,
      problem: `agent ${agent.name}: concurrency.key threw for this input: ${message}`,
    };
  }
  if (typeof key !== "string") {
    return {
      ok: false,
      problem: `agent ${agent.name}: concurrency.key must return a string, got ${key === null ? "null" : typeof key}`,
    };
  }
  if (key.length === 0 || key.length > CONCURRENCY_KEY_MAX) {
    return {
      ok: false,
      problem: `agent ${agent.name}: concurrency.key must return 1 to ${CONCURRENCY_KEY_MAX} characters, got ${key.length}`,
    };
  }
  return { ok: true, key };
}
