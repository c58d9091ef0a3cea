// Any AI SDK language model (OpenAI, Anthropic, Google, Bedrock, Ollama, OpenAI-compatible, a
// gateway id) as the worker's model. Each generate is one model turn through the AI SDK's
// generateText with the tools offered without execute: the model only proposes calls, the
// runtime performs them as effects. Cost comes from the provider's usage and the price table.
import { generateText, type LanguageModel, type LanguageModelUsage, type ToolSet, tool } from "ai";
import { toJsonValue } from "../../domain/json";
import type { ModelClient, ModelRequest, ModelUsage } from "../model";
import { type ModelPrices, priceUsage } from "./prices";

export type AiModelOptions = {
  /** Prices per model id over the shipped defaults (DEFAULT_PRICES). */
  prices?: ModelPrices;
  /** The id to price and record the model by; default: the model's own modelId. */
  modelId?: string;
};

export function aiModel(model: LanguageModel, opts: AiModelOptions = {}): ModelClient {
  const modelId = opts.modelId ?? (typeof model === "string" ? model : model.modelId);
  // A gateway id ("openai/gpt-4o") names its provider before the slash.
  const provider =
    typeof model === "string"
      ? model.includes("/")
        ? model.split("/")[0]
        : "gateway"
      : model.provider;
  return {
    name: modelId,
    async generate(request, signal) {
      const result = await generateText({
        model,
        system: request.system,
        ...conversation(request),
        tools: toolSet(request),
        abortSignal: signal,
        // Retries belong to the task's retry policy, not to a hidden loop in here.
        maxRetries: 0,
      });
      const usage = usageOf(result.usage);
      return {
        model: modelId,
        ...(provider ? { provider } : {}),
        text: result.text,
        toolCalls: result.toolCalls.map((c) => ({
          toolCallId: c.toolCallId,
          toolName: c.toolName,
          args: toJsonValue(c.input, `tool call ${c.toolName}`),
        })),
        usage,
        ...priceUsage(modelId, usage, opts.prices),
      };
    },
  };
}

function conversation(request: ModelRequest) {
  if (request.messages) return { messages: request.messages };
  return { prompt: request.prompt ?? "" };
}

function toolSet(request: ModelRequest): ToolSet {
  const tools: ToolSet = {};
  for (const t of request.tools ?? []) {
    tools[t.name] = tool({ description: t.description, inputSchema: t.input });
  }
  return tools;
}

/** The provider's usage in our shape: cached and reasoning counts only where it reports them. */
export function usageOf(usage: LanguageModelUsage): ModelUsage {
  const cached = usage.inputTokenDetails?.cacheReadTokens ?? usage.cachedInputTokens;
  const reasoning = usage.outputTokenDetails?.reasoningTokens ?? usage.reasoningTokens;
  return {
    inputTokens: usage.inputTokens ?? 0,
    outputTokens: usage.outputTokens ?? 0,
    ...(cached === undefined ? {} : { cachedInputTokens: cached }),
    ...(reasoning === undefined ? {} : { reasoningTokens: reasoning }),
  };
}
