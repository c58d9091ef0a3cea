// The agent the generateText test files run: a loop that looks an order up (two tools at once),
// refunds the amount it read from the results, optionally tells the customer, then answers.
// Its tools count what they really did, and its scripted model counts what it was asked.
import { stepCountIs, tool } from "ai";
import { z } from "zod";
import { durableTool } from "../../lib/sdk/ai/durable-tool";
import { aiModel } from "../../lib/sdk/ai/model";
import { type ScriptedPrompt, scriptedLanguageModel } from "../../lib/sdk/ai/scripted-model";
import { defineAgent, defineTool } from "../../lib/sdk/define";
import { EffectNotPerformedError } from "../../lib/sdk/errors";

export const ORDERS: Record<string, number> = {
  "A-1": 4_000,
  "B-2": 2_500,
  "C-3": 1_200,
  "D-4": 20_000,
};

type Results = Map<string, Record<string, unknown>>;

/** What the tools have returned so far, by tool name, read from the conversation. */
function resultsIn(prompt: ScriptedPrompt): Results {
  const results: Results = new Map();
  for (const m of prompt) {
    if (m.role !== "tool") continue;
    for (const part of m.content) {
      if (part.type === "tool-result" && part.output.type === "json") {
        results.set(part.toolName, part.output.value as Record<string, unknown>);
      }
    }
  }
  return results;
}

function userText(prompt: ScriptedPrompt): string {
  const first = prompt.find((m) => m.role === "user");
  return first?.content.map((p) => (p.type === "text" ? p.text : "")).join("") ?? "";
}

export function refundLoopFixture() {
  /** Each real execution: [tool, orderId]. */
  const executed: [string, string][] = [];
  /** Each time the model was asked: [orderId, turn]. */
  const asked: [string, number][] = [];
  /** The AI SDK execute's toolCallId for each refund (the effect's key). */
  const refundCallIds: string[] = [];
  const hooks = {
    /** Added to the amount the model proposes to refund for an order (a changed proposal). */
    bump: new Map<string, number>(),
    /** Orders whose notify refuses once, as not performed, so the task dead-letters. */
    refuseNotify: new Set<string>(),
    /** Called inside refund's execute, before it returns (to kill the attempt there). */
    duringRefund: new Map<string, () => Promise<void>>(),
  };

  const lookupOrder = durableTool(
    tool({
      description: "Look an order up",
      inputSchema: z.object({ orderId: z.string() }),
      execute: async ({ orderId }) => {
        executed.push(["lookup_order", orderId]);
        return { orderId, amountCents: ORDERS[orderId] ?? 0, currency: "usd" };
      },
    }),
    { name: "lookup_order" },
  );
  const lookupCustomer = durableTool(
    tool({
      description: "Find the customer of an order",
      inputSchema: z.object({ orderId: z.string() }),
      execute: async ({ orderId }) => {
        executed.push(["lookup_customer", orderId]);
        return { email: `${orderId.toLowerCase()}@example.com` };
      },
    }),
    { name: "lookup_customer" },
  );
  const refund = durableTool(
    tool({
      description: "Refund an order",
      inputSchema: z.object({
        orderId: z.string(),
        amountCents: z.number().int(),
        currency: z.string(),
      }),
      execute: async (a, options) => {
        executed.push(["refund", a.orderId]);
        refundCallIds.push(options.toolCallId);
        await hooks.duringRefund.get(a.orderId)?.();
        return { refundId: `re_${a.orderId}_${a.amountCents}` };
      },
    }),
    {
      name: "refund",
      intent: (a) => ({ orderId: a.orderId }),
      money: { amount: "amountCents", currency: "currency" },
      requiresApproval: (a) => a.amountCents > 10_000,
    },
  );
  const notify = defineTool({
    name: "notify",
    description: "Tell the customer",
    input: z.object({ to: z.string(), refundId: z.string() }),
    intent: (a) => a,
    execute: async (a) => {
      const orderId = a.refundId.split("_")[1] ?? "";
      if (hooks.refuseNotify.delete(orderId)) {
        throw new EffectNotPerformedError("the mail server refused", { retryable: false });
      }
      executed.push(["notify", orderId]);
      return { sent: true };
    },
  });

  const languageModel = scriptedLanguageModel((prompt) => {
    const text = userText(prompt);
    const orderId = /order (\S+?)\./.exec(text)?.[1] ?? "?";
    asked.push([orderId, prompt.filter((m) => m.role === "assistant").length + 1]);
    const results = resultsIn(prompt);
    const order = results.get("lookup_order");
    const refunded = results.get("refund");
    if (!order) {
      return {
        text: `Looking order ${orderId} up.`,
        toolCalls: [
          { toolName: "lookup_order", input: { orderId } },
          { toolName: "lookup_customer", input: { orderId } },
        ],
      };
    }
    if (!refunded) {
      const amountCents = Number(order.amountCents) + (hooks.bump.get(orderId) ?? 0);
      return {
        text: "Refunding it.",
        toolCalls: [
          { toolName: "refund", input: { orderId, amountCents, currency: order.currency } },
        ],
      };
    }
    if (text.includes("Tell the customer") && !results.has("notify")) {
      const to = String(results.get("lookup_customer")?.email);
      return { toolCalls: [{ toolName: "notify", input: { to, refundId: refunded.refundId } }] };
    }
    return { text: `Refunded ${String(refunded.refundId)}.` };
  });

  const model = aiModel(languageModel, {
    prices: { scripted: { inputPerMTok: 1_000, outputPerMTok: 2_000 } },
  });

  const agent = defineAgent({
    name: "refund-loop",
    input: z.object({ orderId: z.string(), tell: z.boolean().default(false) }),
    tools: { lookup_order: lookupOrder, lookup_customer: lookupCustomer, refund, notify },
    run: async (ctx, input) => {
      const r = await ctx.generateText({
        system: "You refund orders.",
        prompt: `Refund order ${input.orderId}.${input.tell ? " Tell the customer." : ""}`,
        tools: ["lookup_order", "lookup_customer", "refund", "notify"],
        stopWhen: stepCountIs(8),
      });
      return {
        text: r.text,
        turns: r.turns,
        tools: r.toolCalls.map((c) => c.toolName),
        cost: r.cost,
        stoppedBy: r.stoppedBy,
      };
    },
  });

  const askedFor = (orderId: string) => asked.filter(([o]) => o === orderId).map(([, n]) => n);
  const executedFor = (orderId: string) =>
    executed.filter(([, o]) => o === orderId).map(([name]) => name);
  return { agent, model, languageModel, hooks, refundCallIds, askedFor, executedFor };
}
