// The team's agents module: what `agent-ledger worker --agents ./dist/agents.js` and
// src/worker.ts load. One agent, written as an AI SDK agent loop: the model looks up the order
// and opens a ticket (MCP), reads both results, then refunds (money, approval above 1,000.00).
import { fileURLToPath } from "node:url";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { type AgentsModuleContext, defineAgent } from "agent-ledger";
import { aiModel, durableTool } from "agent-ledger/ai";
import { connectMcp } from "agent-ledger/mcp";
import { scriptedLanguageModel } from "agent-ledger/testing";
import { tool } from "ai";
import { z } from "zod";
import { supportScript } from "./script.js";

const orderSchema = z.object({
  orderId: z.string(),
  amountCents: z.number().int(),
  currency: z.string(),
  customer: z.string(),
});

async function call(url: string, init?: RequestInit): Promise<unknown> {
  const res = await fetch(url, init);
  if (!res.ok) throw new Error(`${init?.method ?? "GET"} ${url}: ${res.status}`);
  return res.json();
}

export function shopTools(shopUrl: string) {
  // A plain AI SDK tool: a read, made durable so its answer is journaled with the task.
  const lookupOrder = tool({
    description: "Look up an order: its amount, currency and customer",
    inputSchema: z.object({ orderId: z.string() }),
    execute: async ({ orderId }) => orderSchema.parse(await call(`${shopUrl}/orders/${orderId}`)),
  });
  // The money tool: the refund's idempotency key travels to the shop as Idempotency-Key.
  const refund = tool({
    description: "Refund an order (amount in cents)",
    inputSchema: z.object({
      orderId: z.string(),
      amountCents: z.number().int().positive(),
      currency: z.string().length(3),
    }),
    execute: async (args, { toolCallId }) =>
      (await call(`${shopUrl}/refunds`, {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": toolCallId },
        body: JSON.stringify(args),
      })) as { refundId: string; orderId: string; amountCents: number; currency: string },
  });
  return {
    // A read: sending it again is harmless, so a lost answer is simply asked for again.
    lookup_order: durableTool(lookupOrder, { name: "lookup_order", providerIdempotent: true }),
    refund: durableTool(refund, {
      name: "refund",
      intent: (a) => ({ orderId: a.orderId }), // one refund per order, however it is worded
      money: { amount: "amountCents", currency: "currency" },
      requiresApproval: (a) => a.amountCents > 100_000,
      providerIdempotent: true,
    }),
  };
}

export const supportInput = z.object({ orderId: z.string(), message: z.string().max(2_000) });

let connection: { close(): Promise<void> } | undefined;

/** Called by the worker after it stops: the MCP server's process ends with it. */
export async function close() {
  await connection?.close();
}

export default async function agents({ env }: AgentsModuleContext) {
  const shopUrl = env.SHOP_URL ?? "http://127.0.0.1:4600";
  // `only` names the server's tools we use, so their names are typed (tickets_create_ticket).
  const tickets = await connectMcp({
    name: "tickets",
    transport: {
      command: process.execPath,
      args: [fileURLToPath(new URL("./tickets-server.js", import.meta.url))],
      env: { TICKETS_FILE: env.TICKETS_FILE ?? "tickets.jsonl" },
    },
    only: ["create_ticket"],
    tools: { create_ticket: { intent: (a) => ({ orderId: a.orderId }), providerIdempotent: true } },
  });
  connection = tickets;
  const tools = { ...shopTools(shopUrl), ...tickets.tools };
  return [
    defineAgent({
      name: "support-refund",
      description: "Answers a refund request: looks up the order, opens a ticket, refunds.",
      input: supportInput,
      tools,
      policy: { maxAttempts: 8, backoffInitialMs: 200 },
      run: async (ctx, input) => {
        const out = await ctx.generateText({
          system: "You are a support agent. Look up the order, open a ticket, then refund it.",
          prompt: `Order ${input.orderId}. The customer writes: ${input.message}`,
          tools: ["lookup_order", "tickets_create_ticket", "refund"],
          maxTurns: 6,
        });
        return { answer: out.text, turns: out.turns, tools: out.toolCalls.map((c) => c.toolName) };
      },
    }),
  ];
}

/** A real provider when MODEL_BASE_URL is set (any OpenAI-compatible endpoint); else the script. */
export function model({ env }: AgentsModuleContext) {
  if (env.MODEL_BASE_URL) {
    const provider = createOpenAICompatible({
      name: "provider",
      baseURL: env.MODEL_BASE_URL,
      apiKey: env.MODEL_API_KEY,
    });
    return aiModel(provider.chatModel(env.MODEL_NAME ?? "gpt-4o-mini"));
  }
  return aiModel(scriptedLanguageModel(supportScript));
}
