// The loop's own rules, over stand-in steps (the durable steps are generate-text.test.ts's):
// the messages it sends back, the AI SDK's stop conditions honoured as they are, maxTurns, and
// calls the model gets wrong answered with an error instead of an effect.
import { hasToolCall, stepCountIs } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { JsonValue } from "../../lib/domain/json";
import { defineAgent, defineTool } from "../../lib/sdk/define";
import type { GenerateTextRequest } from "../../lib/sdk/generate-text";
import type { ModelRequest, ModelResponse } from "../../lib/sdk/model";
import { type LoopSteps, runGenerateText } from "./generate-text";

const echo = defineTool({
  name: "echo",
  input: z.object({ n: z.number() }),
  intent: (a) => a,
  execute: async (a) => a,
});
const agent = defineAgent({
  name: "loop",
  input: z.object({}),
  tools: { echo, done: { ...echo, name: "done" } },
  run: async () => null,
});

/** A model that calls `toolName` with n = its turn, forever, and records what it was sent. */
function stand(toolName = "echo") {
  const sent: ModelRequest[] = [];
  const performed: [string, JsonValue][] = [];
  const steps: LoopSteps = {
    async turn(turn, request): Promise<ModelResponse> {
      sent.push(request);
      return {
        model: "stand-in",
        text: `turn ${turn}`,
        toolCalls: [{ toolCallId: `c${turn}`, toolName, args: { n: turn } }],
        usage: { inputTokens: 10, outputTokens: 5, cachedInputTokens: 2 },
        cost: 0.5,
      };
    },
    async tool(name, args) {
      performed.push([name, args]);
      return { echoed: args };
    },
  };
  return { steps, sent, performed };
}

const run = (steps: LoopSteps, request: Partial<GenerateTextRequest>) =>
  runGenerateText(steps, agent, { prompt: "go", tools: ["echo", "done"], ...request } as never);

describe("runGenerateText", () => {
  it("feeds each result back as a tool message answering the call's id", async () => {
    const s = stand();
    const r = await run(s.steps, { stopWhen: stepCountIs(2) });
    expect(r).toMatchObject({ turns: 2, stoppedBy: "stopWhen", text: "turn 2", cost: 1 });
    expect(r.usage).toEqual({ inputTokens: 20, outputTokens: 10, cachedInputTokens: 4 });
    expect(s.sent[1]?.messages).toEqual([
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "turn 1" },
          { type: "tool-call", toolCallId: "c1", toolName: "echo", input: { n: 1 } },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "c1",
            toolName: "echo",
            output: { type: "json", value: { echoed: { n: 1 } } },
          },
        ],
      },
    ]);
    expect(r.messages).toHaveLength(4);
    expect(r.toolResults.map((t) => t.result)).toEqual([
      { echoed: { n: 1 } },
      { echoed: { n: 2 } },
    ]);
  });

  it("honours the AI SDK's hasToolCall, after performing that turn's calls", async () => {
    const s = stand("done");
    const r = await run(s.steps, { stopWhen: [stepCountIs(9), hasToolCall("done")] });
    expect(r).toMatchObject({ turns: 1, stoppedBy: "stopWhen" });
    expect(s.performed).toEqual([["done", { n: 1 }]]);
  });

  it("stops at maxTurns, and refuses a maxTurns that is not a whole number from 1", async () => {
    const s = stand();
    expect(await run(s.steps, { maxTurns: 3 })).toMatchObject({ turns: 3, stoppedBy: "maxTurns" });
    expect(s.performed).toHaveLength(3);
    await expect(run(stand().steps, { maxTurns: 0 })).rejects.toThrow(/maxTurns must be/);
  });

  it("answers a call to a tool not offered with an error, performing nothing", async () => {
    const s = stand("done");
    const r = await run(s.steps, { tools: ["echo"], maxTurns: 1 });
    expect(s.performed).toEqual([]);
    expect(r.toolResults[0]?.result).toEqual({
      error: 'no tool named "done" is offered; use one of: echo',
    });
  });

  it("continues a conversation given as messages", async () => {
    const s = stand();
    const history = [
      { role: "user" as const, content: "hi" },
      { role: "assistant" as const, content: "hello" },
      { role: "user" as const, content: "go" },
    ];
    await run(s.steps, { prompt: undefined, messages: history, maxTurns: 1 });
    expect(s.sent[0]?.messages).toEqual(history);
  });
});
