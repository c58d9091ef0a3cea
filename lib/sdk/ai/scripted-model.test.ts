// The scripted LanguageModelV3 under the AI SDK itself (no vitest helpers inside it): turns by
// position in the conversation, tool calls the SDK parses, usage from text length, streaming.
import { generateText, type ModelMessage, streamText } from "ai";
import { describe, expect, it } from "vitest";
import { scriptedLanguageModel } from "./scripted-model";

describe("scriptedLanguageModel", () => {
  const turns = [
    { text: "Looking it up.", toolCalls: [{ toolName: "lookup", input: { orderId: "A-1" } }] },
    { text: "Done." },
  ];

  it("answers turn i to a conversation holding i assistant messages", async () => {
    const model = scriptedLanguageModel(turns);
    const first = await generateText({ model, prompt: "Refund A-1" });
    expect(first.text).toBe("Looking it up.");
    expect(first.toolCalls.map((c) => [c.toolCallId, c.toolName, c.input])).toEqual([
      ["call_1_1", "lookup", { orderId: "A-1" }],
    ]);
    expect(first.usage.inputTokens).toBeGreaterThan(0);
    expect(first.usage.outputTokens).toBe(
      Math.ceil('Looking it up.lookup{"orderId":"A-1"}'.length / 4),
    );

    const messages: ModelMessage[] = [
      { role: "user", content: "Refund A-1" },
      ...first.response.messages,
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "call_1_1",
            toolName: "lookup",
            output: { type: "json", value: { amountCents: 4_000 } },
          },
        ],
      },
    ];
    expect((await generateText({ model, messages })).text).toBe("Done.");
    expect(model.calls).toBe(2);
    // The same conversation gets the same answer, however often it is asked.
    expect((await generateText({ model, prompt: "Refund A-1" })).text).toBe("Looking it up.");
  });

  it("says so when asked past its script", async () => {
    const model = scriptedLanguageModel([{ text: "only" }]);
    await expect(
      generateText({
        model,
        messages: [
          { role: "user", content: "a" },
          { role: "assistant", content: "only" },
          { role: "user", content: "b" },
        ],
        maxRetries: 0,
      }),
    ).rejects.toThrow(/the script has 1 turn\(s\); asked for turn 2/);
  });

  it("streams the same answer", async () => {
    const result = streamText({ model: scriptedLanguageModel(turns), prompt: "Refund A-1" });
    expect(await result.text).toBe("Looking it up.");
    expect((await result.toolCalls).map((c) => c.toolName)).toEqual(["lookup"]);
  });
});
