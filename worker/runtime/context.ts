// The ctx an agent's run receives. Each call takes the next step number; a step the journal
// already holds returns its journaled result, so a re-run continues where the last one stopped.
import type pg from "pg";
import { z } from "zod";
import { retryOnConnectionError } from "../../db/retry";
import {
  CALLBACK_STEP,
  type CallbackSigning,
  callbackUrl,
  signCallback,
} from "../../lib/domain/callback-token";
import { eventNameSchema, type WaitResult, waitOptionsSchema } from "../../lib/domain/events";
import { type JsonValue, toJsonValue } from "../../lib/domain/json";
import type { RateLimitSpec } from "../../lib/domain/rate-limit";
import type { StepKind } from "../../lib/domain/task-states";
import { describeIssues } from "../../lib/domain/zod-issues";
import type {
  Agent,
  AgentContext,
  ChildTask,
  JoinResult,
  SpawnOptions,
  Tool,
} from "../../lib/sdk/define";
import { NonRetryableError } from "../../lib/sdk/errors";
import type { ModelClient, ModelResponse } from "../../lib/sdk/model";
import {
  appendOnKnownHead,
  type HeadRef,
  noteAppended,
} from "../../lib/server/ledger/append-known-head";
import { databaseNow } from "../../lib/server/ledger/append-ledger";
import type { Context } from "../../lib/server/tracing";
import type { EffectBatchers } from "./effect-batch";
import { type DeferredResults, recordDeferred } from "./effect-runner";
import { performEffect } from "./effects";
import { LeaseLostError, ParkedError, SuspendError } from "./errors";
import { startWait } from "./event-wait";
import { runGenerateText } from "./generate-text";
import { JOIN_MAX_CHILDREN, startJoin } from "./join";
import { type JournaledStep, journalStepCtes, journalStepValues } from "./journal";
import { callModel, offeredTools } from "./model-step";
import { spawnChild } from "./spawn";
import { ATTR, stepSpan, toolSpan, traceHeaders } from "./tracing";

/** ctx.join's arguments: what ctx.spawn returned, one or a list, and an optional timeout. */
const joinSchema = z.object({
  children: z
    .array(z.object({ taskId: z.uuid("is not a task id (join takes what ctx.spawn returned)") }), {
      message: "takes what ctx.spawn returned, or a list of them",
    })
    .min(1, "takes at least one child")
    .max(JOIN_MAX_CHILDREN, `takes at most ${JOIN_MAX_CHILDREN} children`),
  options: z.object({ timeoutMs: waitOptionsSchema.shape.timeoutMs }).strict(),
});

export type AttemptScope = {
  pool: pg.Pool;
  worker: string;
  taskId: string;
  attempt: number;
  effectLeaseMs: number;
  signal: AbortSignal;
  journal: Map<number, JournaledStep>;
  model?: ModelClient;
  /** Signs ctx.callbackUrl links; without it they cannot be made. */
  callbacks?: CallbackSigning;
  /** Model cost allowed for the whole task (null: unlimited) and spent so far. */
  budget: number | null;
  spent: number;
  /** The task stream's head as this attempt last wrote it. */
  head: HeadRef;
  /** The worker's group commit of effect claims and results. */
  effects: EffectBatchers;
  /** Effect results not recorded yet (effect-runner.ts): recorded before the next step starts. */
  deferred: DeferredResults;
  /** Admins' tool rate limits by tool, read with the claim; they win over the code's. */
  toolLimits?: ReadonlyMap<string, RateLimitSpec>;
  /** The attempt span's context: the parent of each step's span (tracing.ts). */
  trace?: Context;
};

export function createContext(
  scope: AttemptScope,
  agent: Agent,
): AgentContext<Record<string, Tool>> {
  let seq = 0;
  const actor = `worker:${scope.worker}`;

  /** The journaled step at this position, after checking the code still asks for the same thing. */
  const replayed = (n: number, kind: StepKind, name: string): JournaledStep | undefined => {
    const step = scope.journal.get(n);
    if (step && (step.kind !== kind || step.name !== name)) {
      throw new NonRetryableError(
        `journal divergence at step ${n}: the journal has ${step.kind} "${step.name}", the code now calls ${kind} "${name}"`,
      );
    }
    return step;
  };

  // Every step begins here: the attempt is still on, and the results of its earlier effects are
  // durable before anything else happens.
  const begin = async () => {
    if (scope.signal.aborted) throw scope.signal.reason ?? new Error("attempt aborted");
    if (!(await recordDeferred(scope))) {
      throw new LeaseLostError(`lost the lease on task ${scope.taskId}`);
    }
  };

  // Retried through a short database outage (a restart), so a finished step does not cost the
  // attempt. A try whose COMMIT answer was lost is looked up first: the step row and its
  // step.completed entry commit together, so finding the row means both are there.
  // `startedAt`: when the step's own work began, for the timeline's durations (databaseNow: the
  // clock that stamps the entries it is compared with).
  const record = async (step: JournaledStep, startedAt?: Date) => {
    const ok = await retryOnConnectionError(
      async ({ inDoubt }) => {
        if (inDoubt && (await stepRecorded(scope, step.seq))) return true;
        return recordOnce(step, startedAt);
      },
      { giveUpAfterMs: scope.effectLeaseMs, signal: scope.signal },
    );
    if (!ok) throw new LeaseLostError(`lost the lease on task ${scope.taskId}`);
    scope.journal.set(step.seq, step);
  };
  // The step and its step.completed entry in one statement, written only under our lease.
  const recordOnce = async (step: JournaledStep, startedAt: Date | undefined) => {
    const { appended } = await appendOnKnownHead(
      scope.pool,
      scope.head,
      [
        {
          kind: "step.completed",
          actor,
          taskId: scope.taskId,
          data: {
            step: step.seq,
            kind: step.kind,
            name: step.name,
            result: step.result,
            ...(startedAt ? { startedAt: startedAt.toISOString() } : {}),
          },
        },
      ],
      {
        name: "runtime_record_step",
        ctes: journalStepCtes(0),
        values: journalStepValues(scope.worker, scope.taskId, scope.attempt, step),
        when: "exists (select 1 from journaled)",
        select: "(select count(*) from journaled)::int as journaled",
      },
    );
    return appended;
  };

  const toolStep = async (name: string, args: unknown): Promise<JsonValue> => {
    // Numbered before anything is awaited: parallel calls keep the order they were made in.
    const n = ++seq;
    await begin();
    const tool = agent.tools[name];
    if (!tool) throw new NonRetryableError(`agent ${agent.name} has no tool "${name}"`);
    const done = replayed(n, "tool", name);
    if (done) return done.result;
    return toolSpan(scope.trace, name, n, (trace) => performEffect(scope, tool, args, n, trace));
  };

  return {
    taskId: scope.taskId,
    attempt: scope.attempt,
    signal: scope.signal,

    tool: (name, args) => toolStep(name, args) as never,

    async step(name, fn) {
      const n = ++seq;
      await begin();
      const done = replayed(n, "step", name);
      if (done) return done.result as never;
      return stepSpan(scope.trace, "step", name, n, async () => {
        const startedAt = databaseNow();
        const result = toJsonValue(await fn(), `step "${name}" result`);
        await record({ seq: n, kind: "step", name, result, effectKey: null }, startedAt);
        return result as never;
      });
    },

    async spawn(child: Agent | string, input: unknown, options?: SpawnOptions) {
      const n = ++seq;
      await begin();
      const name = typeof child === "string" ? child : child.name;
      const done = replayed(n, "spawn", name);
      if (done) return done.result as ChildTask;
      // The child's attempts join the trace under this span: it stores the span's traceparent.
      return stepSpan(scope.trace, "spawn", name, n, async (span) => {
        const startedAt = databaseNow();
        const spawned = await spawnChild(scope, child, input, options, traceHeaders(span));
        span.setAttribute(ATTR.childTaskId, spawned.taskId);
        await record({ seq: n, kind: "spawn", name, result: spawned, effectKey: null }, startedAt);
        return spawned;
      });
    },

    async sleep(ms) {
      const n = ++seq;
      await begin();
      const done = replayed(n, "sleep", "sleep");
      let until: number;
      if (done) {
        until = Number((done.result as { until?: number } | null)?.until ?? 0);
      } else {
        const startedAt = databaseNow();
        until = startedAt.getTime() + Math.max(0, ms);
        await stepSpan(scope.trace, "sleep", "", n, async (span) => {
          span.setAttribute(ATTR.wakeAt, new Date(until).toISOString());
          await record(
            { seq: n, kind: "sleep", name: "sleep", result: { until }, effectKey: null },
            startedAt,
          );
        });
      }
      if (until > Date.now()) {
        throw new SuspendError(new Date(until), `sleeping until ${new Date(until).toISOString()}`);
      }
    },

    async waitForEvent(name, options) {
      const n = ++seq;
      await begin();
      const done = replayed(n, "wait", name);
      if (done) return done.result as WaitResult;
      const parsedName = eventNameSchema.safeParse(name);
      if (!parsedName.success) {
        throw new NonRetryableError(`waitForEvent: name ${describeIssues(parsedName.error)}`);
      }
      const opts = waitOptionsSchema.safeParse(options ?? {});
      if (!opts.success) {
        throw new NonRetryableError(`waitForEvent "${name}": ${describeIssues(opts.error)}`);
      }
      const { timeoutMs, match } = opts.data;
      const outcome = await stepSpan(scope.trace, "wait", name, n, () =>
        startWait(scope.pool, {
          worker: scope.worker,
          taskId: scope.taskId,
          head: scope.head,
          attempt: scope.attempt,
          seq: n,
          name,
          match: match ?? {},
          deadline: timeoutMs === undefined ? null : new Date(Date.now() + timeoutMs),
        }),
      );
      if (outcome.kind === "lost")
        throw new LeaseLostError(`lost the lease on task ${scope.taskId}`);
      if (outcome.kind === "parked") throw new ParkedError(`waiting for ${name}`);
      noteAppended(scope.head, outcome.appended);
      scope.journal.set(n, { seq: n, kind: "wait", name, result: outcome.result, effectKey: null });
      return outcome.result;
    },

    async join(children, options) {
      const n = ++seq;
      await begin();
      const done = replayed(n, "join", "join");
      if (done) return done.result as JoinResult;
      const parsed = joinSchema.safeParse({
        children: Array.isArray(children) ? children : [children],
        options: options ?? {},
      });
      if (!parsed.success) throw new NonRetryableError(`join: ${describeIssues(parsed.error)}`);
      const joined = parsed.data.children.map((c) => c.taskId);
      const outcome = await stepSpan(scope.trace, "join", "", n, async (span) => {
        span.setAttribute(ATTR.childTaskId, joined);
        const result = await startJoin(scope.pool, {
          worker: scope.worker,
          taskId: scope.taskId,
          head: scope.head,
          attempt: scope.attempt,
          seq: n,
          children: joined,
          timeoutMs: parsed.data.options.timeoutMs,
        });
        // Parked: the attempt ends here and a later one finds the children ended.
        span.setAttribute(ATTR.outcome, result.kind);
        return result;
      });
      if (outcome.kind === "lost")
        throw new LeaseLostError(`lost the lease on task ${scope.taskId}`);
      if (outcome.kind === "parked") throw new ParkedError("waiting for its children");
      noteAppended(scope.head, outcome.appended);
      scope.journal.set(n, {
        seq: n,
        kind: "join",
        name: "join",
        result: outcome.result,
        effectKey: null,
      });
      return outcome.result;
    },

    async callbackUrl(options) {
      const n = ++seq;
      await begin();
      const done = replayed(n, "step", CALLBACK_STEP);
      const parsed = eventNameSchema.safeParse(options?.name ?? "callback");
      if (!parsed.success) {
        throw new NonRetryableError(`callbackUrl: name ${describeIssues(parsed.error)}`);
      }
      const signing = scope.callbacks;
      if (!signing) {
        throw new NonRetryableError(
          "callbackUrl: the worker has no callback secret (startWorker's callbacks option; agent-ledger worker reads CALLBACK_SECRET, else AUTH_SECRET, the same as the web app's)",
        );
      }
      // Journaled without the link: the step's result is the event's name, the link is derived.
      if (!done) {
        const result = { name: parsed.data };
        await record({ seq: n, kind: "step", name: CALLBACK_STEP, result, effectKey: null });
      }
      return callbackUrl(signing.baseUrl, signCallback(signing.secret, scope.taskId, n));
    },

    async model(request) {
      const n = ++seq;
      await begin();
      const done = replayed(n, "model", "model");
      if (done) return done.result as ModelResponse;
      const tools = offeredTools(agent, request.tools);
      return callModel(scope, agent, {
        seq: n,
        name: "model",
        request: { system: request.system, prompt: request.prompt, tools },
        described: { prompt: request.prompt },
      });
    },

    generateText(request) {
      return runGenerateText(
        {
          async turn(turn, modelRequest, described) {
            const n = ++seq;
            await begin();
            const name = `turn ${turn}`;
            const done = replayed(n, "model", name);
            if (done) return done.result as ModelResponse;
            return callModel(scope, agent, {
              seq: n,
              name,
              request: modelRequest,
              described,
              extra: { turn },
            });
          },
          tool: (name, args) => toolStep(name, args),
        },
        agent,
        request,
      );
    },
  };
}

async function stepRecorded(scope: AttemptScope, seq: number): Promise<boolean> {
  const { rows } = await scope.pool.query({
    name: "runtime_step_recorded",
    text: "select 1 from journal_steps where task_id = $1 and seq = $2 and attempt = $3 and status = 'completed'",
    values: [scope.taskId, seq, scope.attempt],
  });
  return rows.length === 1;
}
