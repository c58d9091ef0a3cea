// A real model through any OpenAI-compatible chat-completions endpoint (MODEL_BASE_URL): the
// AI SDK's provider under aiModel, priced from the configured prices over the shipped table.
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { aiModel } from "../../lib/sdk/ai/model";
import type { ModelPrices } from "../../lib/sdk/ai/prices";
import type { ModelClient } from "../../lib/sdk/model";

export type OpenAICompatibleOptions = {
  baseURL: string;
  apiKey?: string;
  model: string;
  /** Prices per model id over the shipped defaults (MODEL_PRICES). */
  prices?: ModelPrices;
};

export function createOpenAICompatibleModel(opts: OpenAICompatibleOptions): ModelClient {
  const provider = createOpenAICompatible({
    name: "openai-compatible",
    baseURL: opts.baseURL,
    apiKey: opts.apiKey,
  });
  return aiModel(provider.chatModel(opts.model), { prices: opts.prices });
}
