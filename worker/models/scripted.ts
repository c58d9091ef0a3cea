// A deterministic model for the demo and tests: a function of the request decides the answer,
// and usage is counted from the text so budgets behave as with a real provider.
import type { ModelClient, ModelRequest, ModelResponse } from "../../lib/sdk/model";
import { costOf, type ModelPricing } from "../../lib/sdk/model";

export type Script = (request: ModelRequest) => Pick<ModelResponse, "text" | "toolCalls">;

const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

export function createScriptedModel(
  script: Script,
  pricing: ModelPricing = { inputPerMTok: 3, outputPerMTok: 15 },
  name = "scripted",
): ModelClient {
  return {
    name,
    async generate(request, signal) {
      if (signal.aborted) throw signal.reason;
      const answer = script(request);
      const usage = {
        inputTokens: tokens(`${request.system ?? ""}${request.prompt}`),
        outputTokens: tokens(answer.text + JSON.stringify(answer.toolCalls)),
      };
      // The price is this model's configuration: the dashboard's, if any, is applied over it.
      const price = { ...pricing, source: "config" as const };
      return {
        model: name,
        provider: "scripted",
        ...answer,
        usage,
        cost: costOf(usage, price),
        price,
      };
    },
  };
}
