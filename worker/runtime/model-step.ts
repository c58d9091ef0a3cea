// One model call as a durable step: the budget checked before it, the decision journaled with
// each proposed call's arguments redacted by its tool's `sensitive` paths, the cost added to the
// task and the call recorded as model.called, all in one transaction under the lease.
// ctx.model and each ctx.generateText turn go through here.
import { withTransaction } from "../../db/client";
import { type JsonValue, toJsonValue } from "../../lib/domain/json";
import { redact } from "../../lib/domain/redact";
import type { Agent } from "../../lib/sdk/define";
import { NonRetryableError } from "../../lib/sdk/errors";
import type { ModelRequest, ModelResponse } from "../../lib/sdk/model";
import { faultPoint } from "../../lib/server/fault-points";
import { appendThrough, noteAppended } from "../../lib/server/ledger/append-known-head";
import { databaseNow } from "../../lib/server/ledger/append-ledger";
import type { Span } from "../../lib/server/tracing";
import type { AttemptScope } from "./context";
import { DeadLetterError, LeaseLostError } from "./errors";
import { type JournaledStep, journalStep } from "./journal";
import { withDashboardPrice } from "./model-price";
import { recordSpend } from "./spend";
import { enforceSpendCap } from "./spend-cap";
import { ATTR, modelSpan } from "./tracing";

export type ModelStep = {
  seq: number;
  /** The step's name in the journal: "model" for ctx.model, "turn N" for a generateText turn. */
  name: string;
  request: ModelRequest;
  /** How the request is described in model.called (the prompt, or a summary of the messages). */
  described: Record<string, JsonValue>;
  /** Journaled with the response (a generateText turn's number). */
  extra?: Record<string, JsonValue>;
  /** When the call began: model.called's startedAt, the timeline's duration. */
  startedAt?: Date;
};

/** Calls the model and journals its answer; this attempt acts on the exact response it returns. */
export function callModel(
  scope: AttemptScope,
  agent: Agent,
  step: ModelStep,
): Promise<ModelResponse> {
  // The database's clock, which stamps the entries the timeline compares it with.
  const startedAt = databaseNow();
  return modelSpan(scope.trace, step.seq, step.name, (span) =>
    callModelIn(scope, agent, { ...step, startedAt }, span),
  );
}

async function callModelIn(
  scope: AttemptScope,
  agent: Agent,
  step: ModelStep,
  span: Span,
): Promise<ModelResponse> {
  if (!scope.model) throw new NonRetryableError("this worker has no model configured");
  if (scope.budget !== null && scope.spent >= scope.budget) {
    throw new DeadLetterError("budget", `model budget ${scope.budget} is spent (${scope.spent})`);
  }
  // The agent's daily cap (spend-cap.ts): waits or dead-letters here, before the call.
  const keyValue = await enforceSpendCap(scope, agent.name);
  const pending = scope.model.generate(step.request, scope.signal);
  faultPoint("model.call");
  const answered = toJsonValue(await pending, "model response") as ModelResponse;
  // Priced again below by an admin's price for the model, if one is set, before anything is written.
  let response = answered;
  let journaled: JournaledStep | undefined;
  const actor = `worker:${scope.worker}`;
  const called = await withTransaction(scope.pool, async (client) => {
    response = await withDashboardPrice(client, answered);
    const stored: ModelResponse = {
      ...response,
      toolCalls: response.toolCalls.map((call) => ({
        ...call,
        args: redact(call.args, agent.tools[call.toolName]?.sensitive ?? []),
      })),
    };
    journaled = {
      seq: step.seq,
      kind: "model",
      name: step.name,
      result: { ...stored, ...step.extra } as JsonValue,
      effectKey: null,
    };
    if (!(await journalStep(client, scope.worker, scope.taskId, scope.attempt, journaled))) {
      return undefined;
    }
    await client.query({
      name: "runtime_add_cost",
      text: "update tasks set cost = cost + $2 where id = $1",
      values: [scope.taskId, response.cost],
    });
    await recordSpend(client, { agent: agent.name, response, keyValue });
    return appendThrough(client, scope.head, {
      kind: "model.called",
      actor,
      taskId: scope.taskId,
      data: {
        step: step.seq,
        ...(step.startedAt ? { startedAt: step.startedAt.toISOString() } : {}),
        ...step.extra,
        model: response.model,
        ...(response.provider === undefined ? {} : { provider: response.provider }),
        system: step.request.system ?? null,
        ...step.described,
        toolsOffered: (step.request.tools ?? []).map((t) => t.name),
        text: response.text,
        toolCalls: stored.toolCalls,
        usage: response.usage,
        cost: response.cost,
        ...(response.priced === undefined ? {} : { priced: response.priced }),
        // Why the call cost what it did: the price used and whether dashboard, config or default set it.
        ...(response.price === undefined ? {} : { price: response.price }),
      },
    });
  });
  if (!called || !journaled) throw new LeaseLostError(`lost the lease on task ${scope.taskId}`);
  span.setAttributes({
    // model.called: what the model answered, in the ledger.
    [ATTR.ledgerEntryId]: called.at(-1)?.id,
    "gen_ai.response.model": response.model,
    "gen_ai.usage.input_tokens": response.usage.inputTokens,
    "gen_ai.usage.output_tokens": response.usage.outputTokens,
    "agent_ledger.cost": response.cost,
  });
  noteAppended(scope.head, called);
  scope.journal.set(step.seq, journaled);
  scope.spent += response.cost;
  if (scope.budget !== null && scope.spent > scope.budget) {
    throw new DeadLetterError(
      "budget",
      `model cost ${scope.spent.toFixed(6)} passed the budget ${scope.budget}`,
    );
  }
  return response;
}

/** The agent's tools by name as the model is offered them; an unknown name is the code's error. */
export function offeredTools(agent: Agent, names: readonly string[] | undefined) {
  return (names ?? []).map((name) => {
    const tool = agent.tools[name];
    if (!tool) throw new NonRetryableError(`agent ${agent.name} has no tool "${name}"`);
    return { name, description: tool.description, input: tool.input };
  });
}
