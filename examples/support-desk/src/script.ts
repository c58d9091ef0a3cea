// The scripted model for tests and a first run without a provider: it answers as a model
// would, from the conversation. Turn 1 calls two tools; turn 2 reads the order from the first
// result and refunds it; turn 3 answers.
import type { ScriptedPrompt, ScriptedTurn } from "agent-ledger/testing";

function toolResult(prompt: ScriptedPrompt, toolName: string): unknown {
  for (const message of prompt) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type === "tool-result" && part.toolName === toolName) {
        return part.output.type === "json" ? part.output.value : undefined;
      }
    }
  }
  return undefined;
}

export function supportScript(prompt: ScriptedPrompt): ScriptedTurn {
  const asked = prompt.filter((m) => m.role === "assistant").length;
  const user = prompt.find((m) => m.role === "user");
  const text = JSON.stringify(user?.content ?? "");
  const orderId = text.match(/Order ([\w-]+)/)?.[1] ?? "unknown";
  if (asked === 0) {
    return {
      toolCalls: [
        { toolName: "lookup_order", input: { orderId } },
        { toolName: "tickets_create_ticket", input: { orderId, title: `Refund for ${orderId}` } },
      ],
    };
  }
  if (asked === 1) {
    const order = toolResult(prompt, "lookup_order") as
      | { amountCents: number; currency: string }
      | undefined;
    if (!order) return { text: `I could not find order ${orderId}.` };
    return {
      toolCalls: [
        {
          toolName: "refund",
          input: { orderId, amountCents: order.amountCents, currency: order.currency },
        },
      ],
    };
  }
  return { text: `Your order ${orderId} is refunded; the ticket has the details.` };
}
