// An effect's result rides the task's next statement (effects.ts), against real PostgreSQL: with
// the success when the effect was the last thing the run did (no statement of its own), before
// the next step when there is one, before the failure when the run throws, and on its own when
// the lease is gone at the end — in every case the effect, its step and effect.succeeded are
// recorded exactly once and the chain verifies.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../db/testing/database";
import { watchNamedStatements } from "../../db/testing/statement-names";
import { defineAgent, defineTool } from "../../lib/sdk/define";
import { NonRetryableError } from "../../lib/sdk/errors";
import { verifyLedger } from "../../lib/server/ledger/verify-ledger";
import { gate, runtimeTestKit } from "./test-support";

const t = await setUpTestDatabase("deferred_result");
const kit = runtimeTestKit(t.pool);

const sent: string[] = [];
const send = defineTool({
  name: "send",
  input: z.object({ to: z.string() }),
  intent: (a) => ({ to: a.to }),
  execute: async (a) => {
    sent.push(a.to);
    return { messageId: `m_${a.to}` };
  },
});

const once = defineAgent({
  name: "deferred-once",
  input: z.object({ to: z.string() }),
  tools: { send },
  run: async (ctx, input) => ctx.tool("send", { to: input.to }),
});

const twice = defineAgent({
  name: "deferred-twice",
  input: z.object({ to: z.string() }),
  tools: { send },
  run: async (ctx, input) => {
    const first = await ctx.tool("send", { to: `${input.to}-1` });
    const second = await ctx.tool("send", { to: `${input.to}-2` });
    return { first, second };
  },
});

const throws = defineAgent({
  name: "deferred-throws",
  input: z.object({ to: z.string() }),
  tools: { send },
  run: async (ctx, input) => {
    await ctx.tool("send", { to: input.to });
    throw new NonRetryableError("the agent gave up after sending");
  },
});

// Holds the run after the effect, so the test can take the lease away before it ends.
let hold = gate();
const slow = defineAgent({
  name: "deferred-slow",
  input: z.object({ to: z.string() }),
  tools: { send },
  run: async (ctx, input) => {
    const r = await ctx.tool("send", { to: input.to });
    await hold.wait;
    return r;
  },
});

async function expectRecordedOnce(taskId: string, steps: number[]): Promise<void> {
  const effects = await kit.effects(taskId);
  expect(effects.map((e) => [e.step_seq, e.status])).toEqual(steps.map((s) => [s, "succeeded"]));
  const { rows } = await t.pool.query<{ seq: number; kind: string; status: string }>(
    "select seq, kind, status from journal_steps where task_id = $1 order by seq",
    [taskId],
  );
  expect(rows.map((r) => [r.seq, r.kind, r.status])).toEqual(
    steps.map((s) => [s, "tool", "completed"]),
  );
  const kinds = await kit.kinds(taskId);
  expect(kinds.filter((k) => k === "effect.succeeded")).toHaveLength(steps.length);
  expect((await verifyLedger(t.pool)).ok).toBe(true);
}

describe("an effect's result rides the task's next statement", () => {
  it("goes with the success when the effect was the run's last step: no statement of its own", async () => {
    const id = await kit.enqueue(once.name, { to: "a" });
    const seen = watchNamedStatements(t.pool);
    expect((await kit.runOneAttempt("w-def", [once]))?.outcome).toBe("succeeded");
    const names = seen.names();
    expect(names).not.toContain("runtime_record_effect");
    expect(names).not.toContain("runtime_record_effects");
    expect(names.filter((n) => n === "runtime_complete_task")).toHaveLength(1);
    expect(await kit.kinds(id)).toEqual(["task.enqueued", "effect.succeeded", "task.succeeded"]);
    expect((await kit.task(id)).result).toEqual({ messageId: "m_a" });
    await expectRecordedOnce(id, [1]);
  });

  it("is recorded before the next step starts", async () => {
    const id = await kit.enqueue(twice.name, { to: "b" });
    const seen = watchNamedStatements(t.pool);
    await kit.runOneAttempt("w-def", [twice]);
    const names = seen.names();
    // The first result on its own, before the second claim; the second with the success.
    const firstRecord = names.indexOf("runtime_record_effect");
    const claims = names
      .map((n, i) => (n === "runtime_claim_effect" ? i : -1))
      .filter((i) => i >= 0);
    expect(firstRecord).toBeGreaterThan(claims[0] ?? Number.POSITIVE_INFINITY);
    expect(firstRecord).toBeLessThan(claims[1] ?? -1);
    expect(names.filter((n) => n === "runtime_record_effect")).toHaveLength(1);
    expect(await kit.kinds(id)).toEqual([
      "task.enqueued",
      "effect.succeeded",
      "effect.succeeded",
      "task.succeeded",
    ]);
    await expectRecordedOnce(id, [1, 2]);
  });

  it("is recorded before the failure when the run throws after the effect", async () => {
    const id = await kit.enqueue(throws.name, { to: "c" });
    expect((await kit.runOneAttempt("w-def", [throws]))?.outcome).toBe("dead");
    expect(await kit.kinds(id)).toEqual([
      "task.enqueued",
      "effect.succeeded",
      "attempt.failed",
      "task.dead_lettered",
    ]);
    await expectRecordedOnce(id, [1]);
  });

  it("is recorded on its own when the lease is gone by the end, and the attempt is lost", async () => {
    hold = gate();
    const id = await kit.enqueue(slow.name, { to: "d" });
    const running = kit.runOneAttempt("w-def", [slow]);
    await kit.waitFor(id, async () => (await kit.effects(id)).length === 1);
    // Another worker's reaper took the task meanwhile.
    await t.pool.query(
      "update tasks set lease_owner = 'someone-else' where id = $1 and status = 'running'",
      [id],
    );
    hold.open();
    expect((await running)?.outcome).toBe("lost");
    expect((await kit.task(id)).status).toBe("running");
    const effects = await kit.effects(id);
    expect(effects.map((e) => [e.status, e.result])).toEqual([["succeeded", { messageId: "m_d" }]]);
    const kinds = await kit.kinds(id);
    expect(kinds.filter((k) => k === "effect.succeeded")).toHaveLength(1);
    expect(kinds).not.toContain("task.succeeded");
    // The step is journaled only under the lease: the one who holds the task now decides.
    const { rows } = await t.pool.query("select 1 from journal_steps where task_id = $1", [id]);
    expect(rows).toHaveLength(0);
    expect((await verifyLedger(t.pool)).ok).toBe(true);
    expect(sent.filter((to) => to === "d")).toHaveLength(1);
  });
});
