// The real provider path, against a local server that speaks the OpenAI chat-completions
// protocol: what we send (model, messages, tools as JSON Schema) and what we read back.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createOpenAICompatibleModel } from "./openai-compatible";

type ChatRequest = {
  model: string;
  messages: { role: string; content: string }[];
  tools?: {
    type: string;
    function: {
      name: string;
      description?: string;
      parameters: { properties: Record<string, unknown> };
    };
  }[];
};

const received: { body: ChatRequest; auth: string | undefined }[] = [];

async function readBody(req: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of req) body += chunk;
  return body;
}

const server = createServer((req, res) => {
  void readBody(req).then((text) => {
    const body = JSON.parse(text) as ChatRequest;
    received.push({ body, auth: req.headers.authorization });
    res.setHeader("content-type", "application/json");
    res.end(
      JSON.stringify({
        id: "chatcmpl-1",
        object: "chat.completion",
        created: 1_700_000_000,
        model: body.model,
        choices: [
          {
            index: 0,
            finish_reason: "tool_calls",
            message: {
              role: "assistant",
              content: "Sending the reminder.",
              tool_calls: [
                {
                  id: "call_1",
                  type: "function",
                  function: {
                    name: "send_email",
                    arguments: JSON.stringify({
                      to: "ada@example.com",
                      invoiceId: "inv_1",
                      body: "Please pay.",
                    }),
                  },
                },
              ],
            },
          },
        ],
        usage: {
          prompt_tokens: 120,
          completion_tokens: 30,
          total_tokens: 150,
          prompt_tokens_details: { cached_tokens: 20 },
          completion_tokens_details: { reasoning_tokens: 10 },
        },
      }),
    );
  });
});
await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
const port = (server.address() as AddressInfo).port;
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("createOpenAICompatibleModel", () => {
  it("sends the prompt and tools and returns the chosen tool call, usage (cached, reasoning) and cost", async () => {
    const model = createOpenAICompatibleModel({
      baseURL: `http://127.0.0.1:${port}/v1`,
      apiKey: "sk-test",
      model: "test-model",
      prices: {
        "test-model": { inputPerMTok: 1_000, outputPerMTok: 2_000, cachedInputPerMTok: 500 },
      },
    });
    const response = await model.generate(
      {
        system: "You chase unpaid invoices.",
        prompt: "Invoice inv_1 for ada@example.com is overdue.",
        tools: [
          {
            name: "send_email",
            description: "Email a customer",
            input: z.object({ to: z.string(), invoiceId: z.string(), body: z.string() }),
          },
        ],
      },
      new AbortController().signal,
    );
    expect(response).toEqual({
      model: "test-model",
      provider: "openai-compatible.chat",
      text: "Sending the reminder.",
      toolCalls: [
        {
          toolCallId: "call_1",
          toolName: "send_email",
          args: { to: "ada@example.com", invoiceId: "inv_1", body: "Please pay." },
        },
      ],
      usage: { inputTokens: 120, outputTokens: 30, cachedInputTokens: 20, reasoningTokens: 10 },
      // The 20 cached input tokens at the cached price; reasoning is billed as output.
      cost: (100 * 1_000 + 20 * 500 + 30 * 2_000) / 1e6,
      priced: true,
      price: {
        inputPerMTok: 1_000,
        outputPerMTok: 2_000,
        cachedInputPerMTok: 500,
        source: "config",
      },
    });
    const sent = received.at(-1);
    expect(sent?.auth).toBe("Bearer sk-test");
    expect(sent?.body.model).toBe("test-model");
    expect(sent?.body.messages).toEqual([
      { role: "system", content: "You chase unpaid invoices." },
      { role: "user", content: "Invoice inv_1 for ada@example.com is overdue." },
    ]);
    expect(sent?.body.tools?.[0]?.function.name).toBe("send_email");
    expect(Object.keys(sent?.body.tools?.[0]?.function.parameters.properties ?? {})).toEqual([
      "to",
      "invoiceId",
      "body",
    ]);
  });
});
