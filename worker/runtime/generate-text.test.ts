// ctx.generateText against real PostgreSQL: each model turn is a journaled step recorded as
// model.called, each tool call an effect whose result goes back to the model, and an attempt
// killed mid-loop resumes from the journal: earlier turns are not asked again, effects act once.
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../db/testing/database";
import { deriveEffectKey } from "../../lib/domain/hash";
import { refundLoopFixture } from "./refund-loop-fixture";
import { gate, runtimeTestKit, setGlobalPolicy } from "./test-support";

const t = await setUpTestDatabase("generate_text");
const kit = runtimeTestKit(t.pool);
const f = refundLoopFixture();
await setGlobalPolicy(t.pool, { maxAttempts: 3, backoffMs: 5, attemptTimeoutMs: 10_000 });

const attempt = (worker: string, signal?: AbortSignal) =>
  kit.runOneAttempt(worker, [f.agent], { model: f.model, signal });

async function steps(taskId: string) {
  const { rows } = await t.pool.query<{ seq: number; kind: string; name: string }>(
    "select seq, kind, name from journal_steps where task_id = $1 order by seq",
    [taskId],
  );
  return rows.map((r) => `${r.seq} ${r.kind} ${r.name}`);
}

describe("ctx.generateText", () => {
  it("calls two tools, reads their results, calls a third, then answers", async () => {
    const id = await kit.enqueue("refund-loop", { orderId: "A-1" });
    expect((await attempt("w1"))?.outcome).toBe("succeeded");

    const task = await kit.task(id);
    expect(task.result).toMatchObject({
      text: "Refunded re_A-1_4000.",
      turns: 3,
      tools: ["lookup_order", "lookup_customer", "refund"],
      stoppedBy: "answer",
    });
    expect(await steps(id)).toEqual([
      "1 model turn 1",
      "2 tool lookup_order",
      "3 tool lookup_customer",
      "4 model turn 2",
      "5 tool refund",
      "6 model turn 3",
    ]);
    // The refund's amount is the one lookup_order returned: the model read the tool results.
    expect(f.executedFor("A-1")).toEqual(["lookup_order", "lookup_customer", "refund"]);
    expect(f.askedFor("A-1")).toEqual([1, 2, 3]);
    const refund = (await kit.effects(id)).find((e) => e.step_seq === 5);
    expect(refund?.args).toEqual({ orderId: "A-1", amountCents: 4_000, currency: "usd" });
    // The AI SDK execute got the effect's key as its toolCallId.
    expect(f.refundCallIds).toContain(deriveEffectKey(id, "refund", { orderId: "A-1" }));

    const called = (await kit.entries(id)).filter((e) => e.kind === "model.called");
    expect(called.map((e) => e.data)).toMatchObject([
      { step: 1, turn: 1, model: "scripted", prompt: "Refund order A-1.", priced: true },
      { step: 4, turn: 2, prompt: null, messages: 3 },
      { step: 6, turn: 3, toolCalls: [] },
    ]);
    expect(called[0]?.data).toMatchObject({
      toolsOffered: ["lookup_order", "lookup_customer", "refund", "notify"],
      toolCalls: [
        { toolName: "lookup_order", args: { orderId: "A-1" } },
        { toolName: "lookup_customer", args: { orderId: "A-1" } },
      ],
    });
    const { rows } = await t.pool.query<{ cost: number }>("select cost from tasks where id = $1", [
      id,
    ]);
    const costs = called.map((e) => (e.data as { cost: number }).cost);
    expect(costs.every((c) => c > 0)).toBe(true);
    expect(rows[0]?.cost).toBeCloseTo(
      costs.reduce((a, b) => a + b, 0),
      9,
    );
    expect((task.result as { cost: number }).cost).toBeCloseTo(rows[0]?.cost ?? -1, 9);
  });

  it("resumes a loop killed during a tool call: journaled turns are not asked again, each effect acts once", async () => {
    const id = await kit.enqueue("refund-loop", { orderId: "B-2" });
    const kill = new AbortController();
    const held = gate();
    f.hooks.duringRefund.set("B-2", async () => {
      kill.abort(new Error("the worker was killed"));
      await held.wait;
    });
    // The attempt ends while refund's provider call is still out (a crash there, as far as the
    // task is concerned); the call then returns and its result is recorded as a fact.
    expect((await attempt("w1", kill.signal))?.outcome).toBe("retry_wait");
    f.hooks.duringRefund.delete("B-2");
    held.open();
    for (let i = 0; i < 100; i++) {
      const refund = (await kit.effects(id)).find((e) => e.step_seq === 5);
      if (refund?.status === "succeeded") break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(f.askedFor("B-2")).toEqual([1, 2]);

    await kit.release(id);
    expect((await attempt("w2"))?.outcome).toBe("succeeded");
    expect(await kit.task(id)).toMatchObject({
      attempts: 2,
      result: { text: "Refunded re_B-2_2500.", turns: 3 },
    });
    // Turns 1 and 2 came from the journal; only turn 3 was asked on the second attempt.
    expect(f.askedFor("B-2")).toEqual([1, 2, 3]);
    expect(f.executedFor("B-2")).toEqual(["lookup_order", "lookup_customer", "refund"]);
    const kinds = await kit.kinds(id);
    expect(kinds.filter((k) => k === "model.called")).toHaveLength(3);
    expect(kinds).toContain("effect.deduplicated");
  });

  it("sends a call whose arguments do not fit the tool back to the model as an error, and honours stepCountIs", async () => {
    const id = await kit.enqueue("refund-loop", { orderId: "C-3" });
    f.hooks.bump.set("C-3", 0.5);
    expect((await attempt("w1"))?.outcome).toBe("succeeded");
    f.hooks.bump.delete("C-3");
    expect(f.executedFor("C-3")).toEqual(["lookup_order", "lookup_customer"]);
    // The model kept proposing the unfit refund until the AI SDK's stepCountIs(8) ended the loop.
    expect((await kit.task(id)).result).toMatchObject({ turns: 8, stoppedBy: "stopWhen" });
    const called = (await kit.entries(id)).filter((e) => e.kind === "model.called");
    expect(called).toHaveLength(8);
    expect((await kit.effects(id)).map((e) => e.step_seq)).toEqual([2, 3]);
  });
});
