// ctx.generateText's contract: a durable agent loop over the agent's own tools. Each model turn
// is a journaled step, each tool call an intent-keyed effect, and the loop ends when the model
// answers without tool calls, when a stop condition says so, or after maxTurns turns.
import type { ModelMessage, StopCondition } from "ai";
import type { JsonValue } from "../domain/json";
import type { ModelToolCall, ModelUsage } from "./model";

/** One finished turn, as a stop condition sees it (the fields the AI SDK's own conditions read). */
export type TurnView = {
  /** Zero-based, as the AI SDK numbers its steps. */
  stepNumber: number;
  text: string;
  toolCalls: { toolCallId: string; toolName: string; input: JsonValue }[];
  toolResults: { toolCallId: string; toolName: string; input: JsonValue; output: JsonValue }[];
  finishReason: "stop" | "tool-calls";
  usage: ModelUsage;
};

/** Our own stop condition, over the turns so far. */
export type TurnStopCondition = (options: {
  steps: readonly TurnView[];
}) => boolean | PromiseLike<boolean>;

/**
 * The AI SDK's `stepCountIs(n)` and `hasToolCall(name)` read only `steps.length` and each step's
 * `toolCalls[].toolName`, which a TurnView carries, so they are accepted as they are. A custom
 * AI SDK condition sees a TurnView, not a full StepResult.
 */
// biome-ignore lint/suspicious/noExplicitAny: the AI SDK's own conditions are typed StopCondition<any>
export type LoopStopCondition = TurnStopCondition | StopCondition<any>;

/** The cap on turns when neither `maxTurns` nor a stop condition ends the loop sooner. */
export const DEFAULT_MAX_TURNS = 20;

type LoopOptions<Name extends string> = {
  system?: string;
  /** Names of the agent's tools the model may call; each call is performed as an effect. */
  tools?: readonly Name[];
  /** Checked after each turn's tool calls are performed; any condition true ends the loop. */
  stopWhen?: LoopStopCondition | readonly LoopStopCondition[];
  /** At most this many model turns (default 20); the last turn's tool calls are still performed. */
  maxTurns?: number;
};

export type GenerateTextRequest<Name extends string = string> = LoopOptions<Name> &
  ({ prompt: string; messages?: never } | { messages: ModelMessage[]; prompt?: never });

export type LoopToolCall = ModelToolCall & { turn: number; toolCallId: string };

export type LoopToolResult = {
  turn: number;
  toolCallId: string;
  toolName: string;
  /** The tool's result, or `{ error }` when the model's arguments did not fit the tool. */
  result: JsonValue;
};

export type GenerateTextResult = {
  /** The last turn's text. */
  text: string;
  /** How many model turns the loop took. */
  turns: number;
  toolCalls: LoopToolCall[];
  toolResults: LoopToolResult[];
  /** The messages the loop added (assistant turns and tool results), to append to a history. */
  messages: ModelMessage[];
  usage: ModelUsage;
  cost: number;
  /** Why the loop ended. */
  stoppedBy: "answer" | "stopWhen" | "maxTurns";
};
