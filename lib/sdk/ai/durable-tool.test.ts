// durableTool: an AI SDK tool becomes one of ours, typed from its zod inputSchema (tsc checks
// that each misuse below is an error), acting through the AI SDK execute with the effect's key.
import { tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent } from "../define";
import { durableTool } from "./durable-tool";

const keys: string[] = [];
const refund = durableTool(
  tool({
    description: "Refund an order",
    inputSchema: z.object({ orderId: z.string(), amountCents: z.number().int() }),
    execute: async (a, options) => {
      keys.push(options.toolCallId);
      return { refundId: `re_${a.orderId}_${a.amountCents}` };
    },
  }),
  { name: "refund", intent: (a) => ({ orderId: a.orderId }), money: true },
);

// Its run is never called: its body is here for the type checker.
const typed = defineAgent({
  name: "typed",
  input: z.object({}),
  tools: { refund },
  run: async (ctx) => {
    const r = await ctx.tool("refund", { orderId: "A-1", amountCents: 100 });
    const id: string = r.refundId;
    // @ts-expect-error amountCents is a number
    await ctx.tool("refund", { orderId: "A-1", amountCents: "100" });
    // @ts-expect-error amountCents is required
    await ctx.tool("refund", { orderId: "A-1" });
    // @ts-expect-error the agent has no such tool
    await ctx.tool("refund_all", {});
    // @ts-expect-error generateText offers only the agent's tools
    await ctx.generateText({ prompt: "Refund A-1", tools: ["refund_all"] });
    // @ts-expect-error a prompt or messages, not both
    await ctx.generateText({ prompt: "Refund A-1", messages: [] });
    return id;
  },
});

durableTool(
  tool({ inputSchema: z.object({ orderId: z.string() }), execute: async () => ({ ok: true }) }),
  // @ts-expect-error intent reads the typed arguments
  { name: "typed_intent", intent: (a) => a.order },
);

const ctx = (key: string) => ({ idempotencyKey: key, signal: new AbortController().signal });

describe("durableTool", () => {
  it("registers as an agent's tool under its name", () => {
    expect(typed.tools.refund).toBe(refund);
    expect(refund.name).toBe("refund");
  });

  it("acts through the AI SDK execute with the effect's key as toolCallId", async () => {
    expect(refund.kind).toBe("tool");
    expect(refund.description).toBe("Refund an order");
    expect(refund.money).toBe(true);
    const result = await refund.execute({ orderId: "A-1", amountCents: 4_000 }, ctx("k1"));
    expect(result).toEqual({ refundId: "re_A-1_4000" });
    expect(keys).toEqual(["k1"]);
    expect(refund.intent({ orderId: "A-1", amountCents: 4_000 })).toEqual({ orderId: "A-1" });
    expect(refund.input.safeParse({ orderId: "A-1", amountCents: 1.5 }).success).toBe(false);
  });

  it("takes the whole arguments as the intent unless told, and a streaming execute's last value", async () => {
    const lookup = durableTool(
      tool({
        inputSchema: z.object({ orderId: z.string() }),
        async *execute({ orderId }) {
          yield { orderId, status: "looking" };
          yield { orderId, status: "found" };
        },
      }),
      { name: "lookup" },
    );
    expect(lookup.intent({ orderId: "A-1" })).toEqual({ orderId: "A-1" });
    expect(await lookup.execute({ orderId: "A-1" }, ctx("k2"))).toEqual({
      orderId: "A-1",
      status: "found",
    });
  });

  it("refuses a tool it cannot make durable, saying why", () => {
    expect(() => durableTool(tool({ inputSchema: z.object({}) }), { name: "no_execute" })).toThrow(
      /has no execute/,
    );
    expect(() =>
      durableTool(tool({ inputSchema: z.object({}), execute: async () => 1 }), {
        name: "Not-Snake",
      }),
    ).toThrow(/snake_case/);
    const jsonSchemaTool = tool({
      inputSchema: { jsonSchema: { type: "object" } } as never,
      execute: async () => 1,
    });
    expect(() => durableTool(jsonSchemaTool, { name: "json_schema" })).toThrow(
      /must be a zod schema/,
    );
  });
});
