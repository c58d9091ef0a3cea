// What ctx.model and ctx.generateText talk to. The worker is configured with one ModelClient:
// any AI SDK language model through aiModel (agent-ledger/ai), or a deterministic scripted model
// for the demo and tests.
import type { ModelMessage } from "ai";
import type { z } from "zod";
import type { JsonValue } from "../domain/json";

export type ModelToolSpec = { name: string; description?: string; input: z.ZodType };

export type ModelRequest = {
  system?: string;
  /** ctx.model's one prompt; a generateText turn sends `messages` instead. */
  prompt?: string;
  /** The conversation so far (generateText): user, assistant and tool-result messages, as JSON. */
  messages?: ModelMessage[];
  /** Tools the model may choose from; it answers with tool calls, which the runtime performs. */
  tools?: readonly ModelToolSpec[];
};

export type ModelToolCall = {
  /** The provider's id for the call, which the tool-result message answers. */
  toolCallId?: string;
  toolName: string;
  args: JsonValue;
};

export type ModelUsage = {
  /** All input tokens, cached ones included. */
  inputTokens: number;
  /** All output tokens, reasoning ones included. */
  outputTokens: number;
  /** Input tokens read from the provider's prompt cache, where the usage reports them. */
  cachedInputTokens?: number;
  /** Output tokens spent on reasoning, where the usage reports them. */
  reasoningTokens?: number;
};

export type ModelResponse = {
  model: string;
  text: string;
  toolCalls: ModelToolCall[];
  usage: ModelUsage;
  /** In the budget's cost units (e.g. US dollars). */
  cost: number;
  /** False when the price table has no entry for the model: the cost is 0, not a guess. */
  priced?: boolean;
};

export type ModelClient = {
  name: string;
  generate(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse>;
};

/** Price per million tokens, for turning usage into cost. */
export type ModelPricing = {
  inputPerMTok: number;
  outputPerMTok: number;
  /** Cached input tokens (a prompt-cache read); absent: they cost what other input costs. */
  cachedInputPerMTok?: number;
};

export function costOf(usage: ModelUsage, pricing: ModelPricing): number {
  const cached = Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens);
  const cachedPrice = pricing.cachedInputPerMTok ?? pricing.inputPerMTok;
  return (
    ((usage.inputTokens - cached) * pricing.inputPerMTok +
      cached * cachedPrice +
      usage.outputTokens * pricing.outputPerMTok) /
    1e6
  );
}
