// A real model through the AI SDK and any OpenAI-compatible chat-completions endpoint. Tools
// are offered without an execute function: the model only chooses, ctx.tool acts.
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, type ToolSet, tool } from "ai";
import { toJsonValue } from "../../lib/domain/json";
import { costOf, type ModelClient, type ModelPricing } from "../../lib/sdk/model";

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
  return {
    name: opts.model,
    async generate(request, signal) {
      const tools: ToolSet = {};
      for (const t of request.tools ?? []) {
        tools[t.name] = tool({ description: t.description, inputSchema: t.input });
      }
      const result = await generateText({
        model: provider.chatModel(opts.model),
        system: request.system,
        prompt: request.prompt,
        tools,
        abortSignal: signal,
        // Retries belong to the task's retry policy, not to a hidden loop in here.
        maxRetries: 0,
      });
      const usage = {
        inputTokens: result.usage.inputTokens ?? 0,
        outputTokens: result.usage.outputTokens ?? 0,
      };
      return {
        model: opts.model,
        text: result.text,
        toolCalls: result.toolCalls.map((c) => ({
          toolName: c.toolName,
          args: toJsonValue(c.input, `tool call ${c.toolName}`),
        })),
        usage,
        cost: costOf(usage, opts.pricing),
      };
    },
  };
}
