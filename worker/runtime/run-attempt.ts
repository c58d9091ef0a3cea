// One attempt of one claimed task: validate the input, replay the journal, run the agent under
// the attempt timeout, then record the outcome (succeeded, retry, dead, or back to the queue)
// with its ledger entries in the same transaction.
import type pg from "pg";
import { withTransaction } from "../../db/client";
import { retryOnConnectionError } from "../../db/retry";
import type { CallbackSigning } from "../../lib/domain/callback-token";
import { type JsonValue, toJsonValue } from "../../lib/domain/json";
import { describeIssues } from "../../lib/domain/zod-issues";
import { errorFields, type Logger } from "../../lib/log";
import { concurrencyKeyOf, FAILED_CONCURRENCY_KEY } from "../../lib/sdk/concurrency-key";
import type { Agent } from "../../lib/sdk/define";
import { NonRetryableError } from "../../lib/sdk/errors";
import type { ModelClient } from "../../lib/sdk/model";
import { appendThrough } from "../../lib/server/ledger/append-known-head";
import type { Context } from "../../lib/server/tracing";
import type { ClaimedAttempt } from "./claim-batch";
import type { Complete } from "./completion-batch";
import { createContext } from "./context";
import type { EffectBatchers, EffectResult } from "./effect-batch";
import { type DeferredResults, recordDeferred } from "./effect-runner";
import {
  ApprovalNeededError,
  AttemptTimeoutError,
  LeaseLostError,
  ParkedError,
  SuspendError,
  serializeError,
} from "./errors";
import { decideFailure, resolveTaskPolicy } from "./policy";
import {
  failTask,
  notifyRunnable,
  parkForApproval,
  recordedOutcome,
  requeueTask,
} from "./task-sql";
import { attemptSpan } from "./tracing";

export type AttemptDeps = {
  pool: pg.Pool;
  worker: string;
  agents: ReadonlyMap<string, Agent>;
  effectLeaseMs: number;
  model?: ModelClient;
  /** Signs ctx.callbackUrl links. */
  callbacks?: CallbackSigning;
  /** Aborted when the worker loses this task's lease or shuts down hard. */
  signal: AbortSignal;
  random?: () => number;
  /** Records a success (completion-batch.ts: one per worker, so successes share statements). */
  complete: Complete;
  /** The worker's group commit of effect claims and results (effect-batch.ts). */
  effects: EffectBatchers;
  /** How long recording the outcome is retried through a database outage (default: not). */
  recordRetryMs?: number;
  log?: Logger;
};

export type AttemptOutcome =
  | "succeeded"
  | "retry_wait"
  | "dead"
  | "requeued"
  | "awaiting_approval"
  | "waiting"
  | "lost";

/** One attempt, in its span (tracing.ts). */
export function runAttempt(deps: AttemptDeps, claimed: ClaimedAttempt): Promise<AttemptOutcome> {
  return attemptSpan(
    claimed.task,
    (trace) => runTracedAttempt(deps, claimed, trace),
    () => claimed.head.startEntryId,
  );
}

async function runTracedAttempt(
  deps: AttemptDeps,
  claimed: ClaimedAttempt,
  trace: Context,
): Promise<AttemptOutcome> {
  const { task, journal } = claimed;
  const actor = `worker:${deps.worker}`;
  const agent = deps.agents.get(task.agent);
  const policy = resolveTaskPolicy(claimed.policyRows, task.agent, agent?.policy, task.policy);

  const controller = new AbortController();
  const onOuterAbort = () => controller.abort(deps.signal.reason);
  deps.signal.addEventListener("abort", onOuterAbort, { once: true });
  const timer = setTimeout(
    () =>
      controller.abort(
        new AttemptTimeoutError(`attempt ${task.attempts} ran past ${policy.attemptTimeoutMs} ms`),
      ),
    policy.attemptTimeoutMs,
  );

  let outcome: { ok: true; result: JsonValue } | { ok: false; error: unknown };
  const deferred: DeferredResults = { open: true, items: [] };
  try {
    if (!agent)
      throw new NonRetryableError(`no agent named "${task.agent}" is registered on this worker`);
    const input = agent.input.safeParse(task.input);
    if (!input.success)
      throw new NonRetryableError(`invalid task input: ${describeIssues(input.error)}`);
    if (task.concurrency_key === FAILED_CONCURRENCY_KEY) {
      const key = concurrencyKeyOf(agent, task.input);
      throw new NonRetryableError(
        key.ok
          ? `agent ${agent.name}: concurrency.key failed when the task was keyed`
          : key.problem,
      );
    }
    const ctx = createContext(
      {
        pool: deps.pool,
        worker: deps.worker,
        taskId: task.id,
        attempt: task.attempts,
        effectLeaseMs: deps.effectLeaseMs,
        signal: controller.signal,
        journal,
        model: deps.model,
        callbacks: deps.callbacks,
        budget: policy.budget,
        spent: task.cost,
        head: claimed.head,
        effects: deps.effects,
        deferred,
        toolLimits: claimed.toolLimits,
        trace,
      },
      agent,
    );
    const aborted = new Promise<never>((_, reject) => {
      controller.signal.addEventListener("abort", () => reject(controller.signal.reason), {
        once: true,
      });
    });
    const result = await Promise.race([agent.run(ctx, input.data), aborted]);
    outcome = { ok: true, result: toJsonValue(result ?? null, "agent result") };
  } catch (err) {
    outcome = { ok: false, error: err };
  } finally {
    clearTimeout(timer);
    deps.signal.removeEventListener("abort", onOuterAbort);
  }

  // The run is over. A success carries its last effect's result (completion-batch.ts); every
  // other result not recorded yet is recorded now, whatever the outcome: each is a fact.
  deferred.open = false;
  const carried = outcome.ok ? deferred.items.pop() : undefined;
  const leased = await recordDeferred({ deferred, effects: deps.effects });
  const err = outcome.ok ? undefined : outcome.error;
  // Another worker may hold the task now (or we could not prove we still do): write nothing.
  if (err instanceof LeaseLostError || !leased) {
    if (carried) {
      deferred.items.push(carried);
      await recordDeferred({ deferred, effects: deps.effects });
    }
    return "lost";
  }
  // The wait parked the task and released the lease in its own transaction.
  if (err instanceof ParkedError) return "waiting";
  // Each try is one transaction whose every write is guarded by our lease, so a try that rolled
  // back is safe to repeat; after a lost COMMIT answer the record is read back first, so a try
  // that did commit is reported, not applied twice (its guard would refuse it anyway).
  return retryOnConnectionError(
    async ({ inDoubt }) => {
      if (inDoubt) {
        const recorded = await recordedOutcome(
          deps.pool,
          task.id,
          task.attempts,
          actor,
          task.claimed_at,
        );
        if (recorded) return recorded;
      }
      return recordOutcome(deps, claimed, policy, outcome, carried);
    },
    {
      giveUpAfterMs: deps.recordRetryMs ?? 0,
      onRetry: (e, attempt, delayMs) =>
        deps.log?.[attempt === 0 ? "warn" : "debug"](
          { ...errorFields(e), retryInMs: delayMs },
          "could not record the attempt's outcome; retrying",
        ),
    },
  );
}

async function recordOutcome(
  deps: AttemptDeps,
  claimed: ClaimedAttempt,
  policy: ReturnType<typeof resolveTaskPolicy>,
  outcome: { ok: true; result: JsonValue } | { ok: false; error: unknown },
  carried: EffectResult | undefined,
): Promise<AttemptOutcome> {
  const { task } = claimed;
  const actor = `worker:${deps.worker}`;
  const entry = (kind: string, data: Record<string, JsonValue>) => ({
    kind,
    actor,
    taskId: task.id,
    data: { attempt: task.attempts, ...data },
  });
  if (outcome.ok) {
    // The common case in one statement, shared with the worker's other attempts finishing now:
    // the task finished and its entry, on the head we know.
    const done = await deps.complete({
      taskId: task.id,
      result: outcome.result,
      head: claimed.head,
      entry: entry("task.succeeded", { result: outcome.result }),
      record: carried,
    });
    return done ? "succeeded" : "lost";
  }
  return withTransaction(deps.pool, async (client): Promise<AttemptOutcome> => {
    const err = outcome.error;
    if (err instanceof ApprovalNeededError) {
      if (!(await parkForApproval(client, deps.worker, task.id, err.approval))) return "lost";
      await appendThrough(client, claimed.head, {
        ...entry("approval.requested", {
          tool: err.approval.tool,
          step: err.approval.step,
          fingerprint: err.approval.fingerprint,
          args: err.approval.args,
        }),
        key: err.approval.key,
      });
      return "awaiting_approval";
    }
    if (err instanceof SuspendError) {
      if (!(await requeueTask(client, deps.worker, task.id, err.until))) return "lost";
      if (err.until.getTime() <= Date.now()) await notifyRunnable(client, task.id);
      await appendThrough(
        client,
        claimed.head,
        entry("task.requeued", { until: err.until.toISOString(), why: err.why, ...err.data }),
      );
      return "requeued";
    }
    const error = serializeError(err);
    const decision = decideFailure(
      err,
      task.attempts - task.attempt_base,
      policy,
      (deps.random ?? Math.random)(),
      new Date(),
    );
    if (!(await failTask(client, deps.worker, task.id, decision.outcome, error))) return "lost";
    const entries = [entry("attempt.failed", { error })];
    if (decision.outcome.status === "retry_wait") {
      entries.push(
        entry("retry.scheduled", {
          runAt: decision.outcome.runAt.toISOString(),
          maxAttempts: policy.maxAttempts,
        }),
      );
    } else {
      entries.push(entry("task.dead_lettered", { reason: decision.outcome.reason, error }));
    }
    await appendThrough(client, claimed.head, entries);
    return decision.outcome.status;
  });
}
