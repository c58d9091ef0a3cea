// A real model through any OpenAI-compatible chat-completions endpoint (MODEL_BASE_URL): the
// AI SDK's provider under aiModel, priced from the configured per-token prices.
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { aiModel } from "../../lib/sdk/ai/model";
import type { ModelClient, ModelPricing } from "../../lib/sdk/model";

export type OpenAICompatibleOptions = {
  baseURL: string;
  apiKey?: string;
  model: string;
  pricing: ModelPricing;
};

export function createOpenAICompatibleModel(opts: OpenAICompatibleOptions): ModelClient {
  const provider = createOpenAICompatible({
    name: "openai-compatible",
    baseURL: opts.baseURL,
    apiKey: opts.apiKey,
  });
  return aiModel(provider.chatModel(opts.model), { prices: { [opts.model]: opts.pricing } });
}
