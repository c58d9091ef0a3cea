// What ctx.model talks to. The worker is configured with one ModelClient: an OpenAI-compatible
// provider through the AI SDK, or a deterministic scripted model for the demo and tests.
import type { z } from "zod";
import type { JsonValue } from "../domain/json";

export type ModelToolSpec = { name: string; description?: string; input: z.ZodType };

export type ModelRequest = {
  system?: string;
  prompt: string;
  /** Tools the model may choose from; it answers with tool calls, which ctx.tool then performs. */
  tools?: readonly ModelToolSpec[];
};

export type ModelToolCall = { toolName: string; args: JsonValue };

export type ModelResponse = {
  model: string;
  text: string;
  toolCalls: ModelToolCall[];
  usage: { inputTokens: number; outputTokens: number };
  /** In the budget's cost units (e.g. US dollars). */
  cost: number;
};

export type ModelClient = {
  name: string;
  generate(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse>;
};

/** Price per million tokens, for turning usage into cost. */
export type ModelPricing = { inputPerMTok: number; outputPerMTok: number };

export function costOf(usage: ModelResponse["usage"], pricing: ModelPricing): number {
  return (
    (usage.inputTokens * pricing.inputPerMTok + usage.outputTokens * pricing.outputPerMTok) / 1e6
  );
}
