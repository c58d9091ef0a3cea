// A model may propose tool arguments that hold secrets. They are redacted by the chosen tool's
// `sensitive` paths before the decision reaches `steps` or the ledger; the attempt that asked
// acts on the exact values, and a later attempt never acts on the placeholders.

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../db/testing/database";
import { operator } from "../../lib/domain/access";
import { defineAgent, defineTool } from "../../lib/sdk/define";
import { NonRetryableError } from "../../lib/sdk/errors";
import { replayTask } from "../../lib/server/commands/replay-task";
import { createScriptedModel } from "../models/scripted";
import { runtimeTestKit } from "./test-support";
import { workerForFile } from "./test-worker";

const t = await setUpTestDatabase("model_redaction");
const kit = runtimeTestKit(t.pool);

const CARD = "4111 1111 1111 1111";
const CVC = "737";
const charged: { orderId: string; number: string; cvc: string; amount: number }[] = [];
let asked = 0;

const pay = defineTool({
  name: "pay",
  input: z.object({
    orderId: z.string(),
    amount: z.number().int(),
    card: z.object({ number: z.string(), cvc: z.string() }),
  }),
  intent: (a) => ({ orderId: a.orderId }),
  sensitive: ["card.number", "card.cvc"],
  execute: async (a) => {
    charged.push({ orderId: a.orderId, number: a.card.number, cvc: a.card.cvc, amount: a.amount });
    return { paymentId: `pay_${a.orderId}`, last4: a.card.number.slice(-4) };
  },
});

const model = createScriptedModel((req) => {
  asked += 1;
  const orderId = /order (\S+)/.exec(req.prompt ?? "")?.[1] ?? "?";
  return {
    text: `Paying for ${orderId}`,
    toolCalls: [
      { toolName: "pay", args: { orderId, amount: 1250, card: { number: CARD, cvc: CVC } } },
    ],
  };
});

/** Where each task fails: right after the model answered, or after it paid. */
const crashAfterModel = new Set<string>();
const failAfterPaying = new Set<string>();

const checkout = defineAgent({
  name: "checkout",
  input: z.object({ orderId: z.string() }),
  tools: { pay },
  run: async (ctx, input) => {
    const decision = await ctx.model({ prompt: `Pay order ${input.orderId}`, tools: ["pay"] });
    if (crashAfterModel.delete(input.orderId)) throw new Error("crashed after the model answered");
    const results = [];
    for (const call of decision.toolCalls) {
      results.push(await ctx.tool("pay", call.args as z.input<typeof pay.input>));
    }
    if (failAfterPaying.has(input.orderId)) throw new NonRetryableError("the shop is closed");
    return { results };
  },
});

workerForFile(t.pool, {
  policy: { maxAttempts: 3, backoffMs: 5, attemptTimeoutMs: 5_000 },
  agents: [checkout],
  model,
  concurrency: 2,
  id: "w1",
});

/** Every stored copy of the task, as text: its journal, its ledger, its effects. */
async function storedText(taskId: string): Promise<string> {
  const { rows } = await t.pool.query<{ text: string }>(
    `select coalesce(string_agg(result::text, ' '), '') as text from steps where task_id = $1
     union all select coalesce(string_agg(data::text, ' '), '') from ledger_entries where task_id = $1
     union all select coalesce(string_agg(args::text || ' ' || coalesce(result::text, ''), ' '), '')
       from effects where task_id = $1`,
    [taskId],
  );
  return rows.map((r) => r.text).join("\n");
}

const chargesFor = (orderId: string) => charged.filter((c) => c.orderId === orderId);

describe("tool arguments a model proposes", () => {
  it("act with the exact values but reach neither steps nor the ledger", async () => {
    const id = await kit.enqueue("checkout", { orderId: "o1" });
    expect(await kit.settle(id)).toMatchObject({ status: "succeeded", attempts: 1 });
    expect(chargesFor("o1")).toEqual([{ orderId: "o1", number: CARD, cvc: CVC, amount: 1250 }]);

    const text = await storedText(id);
    expect(text).toContain("pay_o1");
    expect(text).not.toContain(CARD);
    expect(text).not.toContain(CVC);

    const called = (await kit.entries(id)).find((e) => e.kind === "model.called");
    expect(called?.data).toMatchObject({
      toolCalls: [
        {
          toolName: "pay",
          args: { orderId: "o1", amount: 1250, card: { number: "[redacted]", cvc: "[redacted]" } },
        },
      ],
    });
    const { rows } = await t.pool.query(
      "select result from steps where task_id = $1 and kind = 'model'",
      [id],
    );
    expect(rows[0]?.result.toolCalls[0].args).toEqual({
      orderId: "o1",
      amount: 1250,
      card: { number: "[redacted]", cvc: "[redacted]" },
    });
  });

  it("a retry never acts on the placeholders: the task waits for a reviewer's replay", async () => {
    crashAfterModel.add("o2");
    const id = await kit.enqueue("checkout", { orderId: "o2" });
    const before = asked;
    const dead = await kit.settle(id);
    expect(dead).toMatchObject({ status: "dead", dead_reason: "non_retryable", attempts: 2 });
    expect(dead.last_error?.message).toMatch(/redacted.*replay from the model step/);
    expect(chargesFor("o2")).toHaveLength(0);
    expect(asked - before).toBe(1);
    expect(await kit.effects(id)).toEqual([]);

    // Replaying from the model step asks it again; the new decision acts once.
    const replayed = await replayTask(t.pool, operator("rita@example.com"), {
      taskId: id,
      version: dead.version,
      fromStep: 1,
    });
    expect(replayed.ok).toBe(true);
    expect(await kit.settle(id)).toMatchObject({ status: "succeeded" });
    expect(asked - before).toBe(2);
    expect(chargesFor("o2")).toEqual([{ orderId: "o2", number: CARD, cvc: CVC, amount: 1250 }]);
    expect(await storedText(id)).not.toContain(CARD);
  });

  it("an effect that already happened is deduplicated from the redacted decision", async () => {
    failAfterPaying.add("o3");
    const id = await kit.enqueue("checkout", { orderId: "o3" });
    const dead = await kit.settle(id);
    expect(dead).toMatchObject({ status: "dead", dead_reason: "non_retryable" });
    expect(chargesFor("o3")).toHaveLength(1);

    failAfterPaying.delete("o3");
    const before = asked;
    const replayed = await replayTask(t.pool, operator("rita@example.com"), {
      taskId: id,
      version: dead.version,
      fromStep: 2,
    });
    expect(replayed.ok).toBe(true);
    expect(await kit.settle(id)).toMatchObject({
      status: "succeeded",
      result: { results: [{ paymentId: "pay_o3", last4: "1111" }] },
    });
    expect(asked).toBe(before);
    expect(chargesFor("o3")).toHaveLength(1);
    expect(await kit.kinds(id)).toContain("effect.deduplicated");
  });
});
