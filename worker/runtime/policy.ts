// Reads the retry policy in force for a task, and decides what a failed attempt leads to.
import { ZodError } from "zod";
import type { SqlClient } from "../../db/client";
import {
  backoffDelayMs,
  type PartialRetryPolicy,
  type PolicyColumns,
  partialRetryPolicySchema,
  policyFromColumns,
  type RetryPolicy,
  resolvePolicy,
} from "../../lib/domain/retry-policy";
import { EffectNotPerformedError, NonRetryableError } from "../../lib/sdk/errors";
import { AttemptTimeoutError, DeadLetterError } from "./errors";
import type { FailOutcome } from "./task-sql";

export type PolicyRow = PolicyColumns & { scope: string };

function fromRow(row: PolicyRow | undefined): PartialRetryPolicy | null {
  return row ? policyFromColumns(row) : null;
}

/** The global row and the rows of these agents. */
export async function loadPolicyRows(
  client: SqlClient,
  agentNames: readonly string[],
): Promise<PolicyRow[]> {
  const { rows } = await client.query<PolicyRow>({
    name: "runtime_load_policies",
    text: `select scope, max_attempts, backoff_initial_ms, backoff_factor, backoff_max_ms, attempt_timeout_ms, budget, concurrency_limit
           from retry_policies where scope = 'global' or scope = any($1::text[])`,
    values: [agentNames.map((a) => `agent:${a}`)],
  });
  return rows;
}

/**
 * Task override → agent row → agent code → global → built-in, through the same resolution the
 * retry-policies screen shows (it reads the code's policy from agent_catalog).
 */
export function resolveTaskPolicy(
  rows: readonly PolicyRow[],
  agentName: string,
  agentCodePolicy: PartialRetryPolicy | undefined,
  taskPolicy: unknown,
): RetryPolicy {
  const task = partialRetryPolicySchema.safeParse(taskPolicy ?? {});
  return resolvePolicy({
    task: task.success ? task.data : null,
    agent: fromRow(rows.find((r) => r.scope === `agent:${agentName}`)),
    code: agentCodePolicy,
    global: fromRow(rows.find((r) => r.scope === "global")),
  });
}

export async function loadPolicy(
  client: SqlClient,
  agentName: string,
  agentCodePolicy: PartialRetryPolicy | undefined,
  taskPolicy: unknown,
): Promise<RetryPolicy> {
  const rows = await loadPolicyRows(client, [agentName]);
  return resolveTaskPolicy(rows, agentName, agentCodePolicy, taskPolicy);
}

export type FailureDecision = { outcome: FailOutcome; retryable: boolean };

/**
 * What a failed attempt leads to under `policy`; `attempts` counts the current budget only (a
 * resume or replay starts a new one), not the task's cumulative attempt number.
 */
export function decideFailure(
  err: unknown,
  attempts: number,
  policy: RetryPolicy,
  random: number,
  now: Date,
): FailureDecision {
  const dead = (reason: Extract<FailOutcome, { status: "dead" }>["reason"]): FailureDecision => ({
    outcome: { status: "dead", reason },
    retryable: false,
  });
  if (err instanceof DeadLetterError) return dead(err.reason);
  if (err instanceof NonRetryableError || err instanceof ZodError) return dead("non_retryable");
  if (err instanceof EffectNotPerformedError && !err.retryable) return dead("non_retryable");
  if (attempts >= policy.maxAttempts) {
    return dead(err instanceof AttemptTimeoutError ? "timeout" : "exhausted");
  }
  const delay = backoffDelayMs(policy, attempts, random);
  return {
    outcome: { status: "retry_wait", runAt: new Date(now.getTime() + delay) },
    retryable: true,
  };
}
