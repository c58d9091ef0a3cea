// Misuses the compiler must reject: `npm run typecheck` fails if any of these compiles, so the
// package's .d.ts is real. Never run.
import { defineAgent, startWorker } from "agent-ledger";
import { durableTool } from "agent-ledger/ai";
import { connectMcp } from "agent-ledger/mcp";
import { tool } from "ai";
import { z } from "zod";
import { shopTools } from "./agents.js";

const tools = shopTools("http://127.0.0.1:4600");

defineAgent({
  name: "misuse",
  input: z.object({ orderId: z.string() }),
  tools,
  run: async (ctx, input) => {
    // @ts-expect-error amountCents must be a number
    await ctx.tool("refund", { orderId: input.orderId, amountCents: "12", currency: "usd" });
    // @ts-expect-error the agent has no tool "delete_order"
    await ctx.tool("delete_order", { orderId: input.orderId });
    // @ts-expect-error lookup_order takes an orderId
    await ctx.tool("lookup_order", { id: input.orderId });
    // @ts-expect-error only the agent's tools may be offered to the model
    await ctx.generateText({ prompt: "hi", tools: ["send_wire"] });
    return null;
  },
});

durableTool(
  tool({ inputSchema: z.object({ n: z.number() }), execute: async ({ n }) => ({ n }) }),
  // @ts-expect-error the intent receives the tool's arguments, which have no "m"
  { name: "count", intent: (a) => a.m.toFixed() },
);

// @ts-expect-error concurrency is a number
void startWorker({ databaseUrl: "postgres://x", agents: [], concurrency: "4" });

export async function mcpMisuse() {
  const desk = await connectMcp({
    name: "desk",
    transport: { command: "node", args: ["desk-server.js"] },
    only: ["create_ticket"],
  });
  void desk.tools.desk_create_ticket;
  // @ts-expect-error the server's tool is desk_create_ticket: the names `only` lists are typed
  void desk.tools.desk_open_ticket;
}
