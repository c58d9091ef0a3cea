// ctx.generateText's loop: ask the model, perform each tool call it makes as an effect, feed
// the results back, until it answers without tool calls, a stop condition holds, or maxTurns.
// The durable parts come from the context: each turn is a journaled model step (a later attempt
// reads it instead of asking again) and each call goes through ctx.tool's effect path.
import type { ModelMessage, ToolResultPart } from "ai";
import { type JsonValue, toJsonValue } from "../../lib/domain/json";
import { holdsRedacted } from "../../lib/domain/redact";
import type { Agent } from "../../lib/sdk/define";
import { NonRetryableError } from "../../lib/sdk/errors";
import {
  DEFAULT_MAX_TURNS,
  type GenerateTextRequest,
  type GenerateTextResult,
  type LoopStopCondition,
  type LoopToolCall,
  type LoopToolResult,
  type TurnStopCondition,
  type TurnView,
} from "../../lib/sdk/generate-text";
import type { ModelRequest, ModelResponse, ModelUsage } from "../../lib/sdk/model";
import { offeredTools } from "./model-step";

export type LoopSteps = {
  /** Turn `turn` (from 1): journaled, or asked of the model and journaled. */
  turn(
    turn: number,
    request: ModelRequest,
    described: Record<string, JsonValue>,
  ): Promise<ModelResponse>;
  /** One tool call, performed as an effect (ctx.tool). */
  tool(name: string, args: JsonValue): Promise<JsonValue>;
};

export async function runGenerateText(
  steps: LoopSteps,
  agent: Agent,
  request: GenerateTextRequest,
): Promise<GenerateTextResult> {
  const maxTurns = request.maxTurns ?? DEFAULT_MAX_TURNS;
  if (!Number.isInteger(maxTurns) || maxTurns < 1) {
    throw new NonRetryableError(
      `generateText: maxTurns must be a whole number from 1, not ${maxTurns}`,
    );
  }
  const tools = offeredTools(agent, request.tools);
  const offered = new Set(tools.map((t) => t.name));
  const conditions = toConditions(request.stopWhen);
  const input: ModelMessage[] = request.messages ?? [
    { role: "user", content: request.prompt ?? "" },
  ];
  const added: ModelMessage[] = [];
  const views: TurnView[] = [];
  const toolCalls: LoopToolCall[] = [];
  const toolResults: LoopToolResult[] = [];
  let usage: ModelUsage = { inputTokens: 0, outputTokens: 0 };
  let cost = 0;
  let text = "";
  let stoppedBy: GenerateTextResult["stoppedBy"] = "maxTurns";

  for (let turn = 1; turn <= maxTurns; turn++) {
    const messages = [...input, ...added];
    const response = await steps.turn(
      turn,
      { system: request.system, messages, tools },
      {
        prompt: turn === 1 && request.prompt !== undefined ? request.prompt : null,
        messages: messages.length,
      },
    );
    usage = addUsage(usage, response.usage);
    cost += response.cost;
    text = response.text;
    const calls: LoopToolCall[] = response.toolCalls.map((c, i) => ({
      ...c,
      turn,
      toolCallId: c.toolCallId ?? `turn${turn}_call${i + 1}`,
    }));
    added.push({
      role: "assistant",
      content: [
        ...(response.text ? [{ type: "text" as const, text: response.text }] : []),
        ...calls.map((c) => ({
          type: "tool-call" as const,
          toolCallId: c.toolCallId,
          toolName: c.toolName,
          input: c.args,
        })),
      ],
    });
    const view: TurnView = {
      stepNumber: turn - 1,
      text: response.text,
      toolCalls: calls.map((c) => ({
        toolCallId: c.toolCallId,
        toolName: c.toolName,
        input: c.args,
      })),
      toolResults: [],
      finishReason: calls.length === 0 ? "stop" : "tool-calls",
      usage: response.usage,
    };
    views.push(view);
    toolCalls.push(...calls);
    if (calls.length === 0) {
      stoppedBy = "answer";
      break;
    }
    const parts: ToolResultPart[] = [];
    for (const call of calls) {
      const outcome = await perform(steps, agent, offered, call);
      const result = "error" in outcome ? { error: outcome.error } : outcome.result;
      toolResults.push({ turn, toolCallId: call.toolCallId, toolName: call.toolName, result });
      view.toolResults.push({
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        input: call.args,
        output: result,
      });
      parts.push({
        type: "tool-result",
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output:
          "error" in outcome
            ? { type: "error-text", value: outcome.error }
            : { type: "json", value: outcome.result },
      });
    }
    added.push({ role: "tool", content: parts });
    if (await anyHolds(conditions, views)) {
      stoppedBy = "stopWhen";
      break;
    }
  }
  return {
    text,
    turns: views.length,
    toolCalls,
    toolResults,
    messages: added,
    usage,
    cost,
    stoppedBy,
  };
}

/**
 * A call the model got wrong (a tool not offered, arguments that do not fit) goes back to it
 * as an error result, as the AI SDK's own loop does: no effect, and the same journaled
 * decision gives the same answer on every attempt. Arguments holding a redacted placeholder go
 * to the effect path, which may only deduplicate them.
 */
async function perform(
  steps: LoopSteps,
  agent: Agent,
  offered: ReadonlySet<string>,
  call: LoopToolCall,
): Promise<{ result: JsonValue } | { error: string }> {
  const tool = agent.tools[call.toolName];
  if (!tool || !offered.has(call.toolName)) {
    return {
      error: `no tool named "${call.toolName}" is offered; use one of: ${[...offered].join(", ")}`,
    };
  }
  const parsed = tool.input.safeParse(call.args);
  if (!parsed.success && !holdsRedacted(call.args, tool.sensitive ?? [])) {
    return { error: `invalid arguments for ${call.toolName}: ${parsed.error.message}` };
  }
  return { result: toJsonValue(await steps.tool(call.toolName, call.args)) };
}

function toConditions(stopWhen: GenerateTextRequest["stopWhen"]): TurnStopCondition[] {
  const list: readonly LoopStopCondition[] =
    stopWhen === undefined
      ? []
      : Array.isArray(stopWhen)
        ? stopWhen
        : [stopWhen as LoopStopCondition];
  // An AI SDK condition reads the fields a TurnView carries (see LoopStopCondition).
  return list.map((c) => c as TurnStopCondition);
}

async function anyHolds(conditions: TurnStopCondition[], steps: readonly TurnView[]) {
  for (const condition of conditions) {
    if (await condition({ steps })) return true;
  }
  return false;
}

function addUsage(a: ModelUsage, b: ModelUsage): ModelUsage {
  const sum = (x?: number, y?: number) =>
    x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0);
  const cached = sum(a.cachedInputTokens, b.cachedInputTokens);
  const reasoning = sum(a.reasoningTokens, b.reasoningTokens);
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    ...(cached === undefined ? {} : { cachedInputTokens: cached }),
    ...(reasoning === undefined ? {} : { reasoningTokens: reasoning }),
  };
}
