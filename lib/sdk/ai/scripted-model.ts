// A deterministic AI SDK language model for tests and demos: our own implementation of the
// LanguageModelV3 spec (`ai/test`'s MockLanguageModelV3 loads in plain node, but it only hands
// back results we would build anyway, and its entry point is a test helper). The script is a
// list of turns, or a function of the conversation; usage is counted from text length, so
// budgets and prices behave as with a real provider.
import type { LanguageModel } from "ai";

export type LanguageModelV3 = Extract<LanguageModel, { specificationVersion: "v3" }>;
type CallOptions = Parameters<LanguageModelV3["doGenerate"]>[0];
type GenerateResult = Awaited<ReturnType<LanguageModelV3["doGenerate"]>>;
type StreamPart =
  Awaited<ReturnType<LanguageModelV3["doStream"]>>["stream"] extends ReadableStream<infer P>
    ? P
    : never;

/** The conversation as the provider receives it: system, user, assistant and tool messages. */
export type ScriptedPrompt = CallOptions["prompt"];

export type ScriptedTurn = {
  text?: string;
  toolCalls?: readonly { toolName: string; input: unknown }[];
  /** Of the counted tokens, how many the provider would report as cache reads and reasoning. */
  usage?: { cachedInputTokens?: number; reasoningTokens?: number };
};

export type ScriptedLanguageModel = LanguageModelV3 & {
  /** How many times the model was asked (doGenerate and doStream). */
  readonly calls: number;
};

/** ~4 characters a token, at least one. */
const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

/**
 * `turns[i]` answers the conversation that already holds i assistant messages, so the same
 * conversation gets the same answer on every attempt; a function decides from the prompt.
 */
export function scriptedLanguageModel(
  script: readonly ScriptedTurn[] | ((prompt: ScriptedPrompt) => ScriptedTurn),
  opts: { modelId?: string; provider?: string } = {},
): ScriptedLanguageModel {
  let calls = 0;
  const answer = (options: CallOptions): GenerateResult => {
    calls += 1;
    if (options.abortSignal?.aborted) throw options.abortSignal.reason;
    const asked = options.prompt.filter((m) => m.role === "assistant").length;
    const turn = typeof script === "function" ? script(options.prompt) : script[asked];
    if (!turn) {
      throw new Error(
        `scripted model: the script has ${script.length} turn(s); asked for turn ${asked + 1}`,
      );
    }
    const text = turn.text ?? "";
    const toolCalls = (turn.toolCalls ?? []).map((c, i) => ({
      type: "tool-call" as const,
      toolCallId: `call_${asked + 1}_${i + 1}`,
      toolName: c.toolName,
      input: JSON.stringify(c.input ?? {}),
    }));
    const cached = turn.usage?.cachedInputTokens;
    const reasoning = turn.usage?.reasoningTokens;
    const input = tokens(JSON.stringify(options.prompt)) + (cached ?? 0);
    const output =
      tokens(text + toolCalls.map((c) => c.toolName + c.input).join("")) + (reasoning ?? 0);
    return {
      content: [...(text ? [{ type: "text" as const, text }] : []), ...toolCalls],
      finishReason: { unified: toolCalls.length > 0 ? "tool-calls" : "stop", raw: undefined },
      usage: {
        inputTokens: {
          total: input,
          noCache: input - (cached ?? 0),
          cacheRead: cached,
          cacheWrite: undefined,
        },
        outputTokens: { total: output, text: output - (reasoning ?? 0), reasoning },
      },
      warnings: [],
    };
  };
  return {
    specificationVersion: "v3",
    provider: opts.provider ?? "scripted",
    modelId: opts.modelId ?? "scripted",
    supportedUrls: {},
    get calls() {
      return calls;
    },
    async doGenerate(options) {
      return answer(options);
    },
    async doStream(options) {
      const result = answer(options);
      const parts: StreamPart[] = [{ type: "stream-start", warnings: [] }];
      for (const part of result.content) {
        if (part.type === "text") {
          parts.push(
            { type: "text-start", id: "text" },
            { type: "text-delta", id: "text", delta: part.text },
            { type: "text-end", id: "text" },
          );
        } else if (part.type === "tool-call") {
          parts.push(part);
        }
      }
      parts.push({ type: "finish", usage: result.usage, finishReason: result.finishReason });
      return {
        stream: new ReadableStream<StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
}
