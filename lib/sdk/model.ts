// What ctx.model and ctx.generateText talk to. The worker is configured with one ModelClient:
// any AI SDK language model through aiModel (agent-ledger/ai), or a deterministic scripted model
// for the demo and tests.
import type { ModelMessage } from "ai";
import type { z } from "zod";
import type { JsonValue } from "../domain/json";
import type { ModelUsage, PriceUsed } from "../domain/model-pricing";

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

export type ModelResponse = {
  model: string;
  /** Who served the call: the AI SDK model's `provider` ("openai.chat"), "scripted" for tests. */
  provider?: string;
  text: string;
  toolCalls: ModelToolCall[];
  usage: ModelUsage;
  /** In the budget's cost units (e.g. US dollars). */
  cost: number;
  /** False when the price table has no entry for the model: the cost is 0, not a guess. */
  priced?: boolean;
  /** The price `cost` was computed with and where it came from; absent when unpriced. */
  price?: PriceUsed;
};

export type ModelClient = {
  name: string;
  generate(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse>;
};

export {
  costOf,
  type ModelPricing,
  type ModelUsage,
  type PriceSource,
  type PriceUsed,
} from "../domain/model-pricing";
