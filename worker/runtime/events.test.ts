// Events against a real database: a waiting task holds no lease and spends no attempt, an event
// wakes it with its payload, a deadline times it out, a kept event is taken when the wait
// starts (an expired one is not), and a key or a second waiter never makes one delivery two.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../db/testing/database";
import { operator } from "../../lib/domain/access";
import type { WaitResult } from "../../lib/domain/events";
import { defineAgent } from "../../lib/sdk/define";
import { NonRetryableError } from "../../lib/sdk/errors";
import { sendEvent } from "../../lib/sdk/send-event";
import { replayTask } from "../../lib/server/commands/replay-task";
import { sendEvent as sendEventCommand } from "../../lib/server/commands/send-event";
import { runtimeTestKit } from "./test-support";

const t = await setUpTestDatabase("events");
const kit = runtimeTestKit(t.pool);

const seen: WaitResult[] = [];
const waiter = defineAgent({
  name: "event-waiter",
  input: z.object({ orderId: z.string(), timeoutMs: z.number().optional() }),
  tools: {},
  run: async (ctx, input) => {
    const before = await ctx.step("before", async () => "done");
    const got = await ctx.waitForEvent("order.paid", {
      match: { orderId: input.orderId },
      timeoutMs: input.timeoutMs,
    });
    seen.push(got);
    return { before, got };
  },
});

async function waitRow(taskId: string) {
  const { rows } = await t.pool.query(
    "select status, event_id, deadline from event_waits where task_id = $1",
    [taskId],
  );
  return rows;
}

async function taskRow(taskId: string) {
  const { rows } = await t.pool.query(
    "select status, attempts, lease_owner, run_at from tasks where id = $1",
    [taskId],
  );
  return rows[0];
}

describe("ctx.waitForEvent", () => {
  it("parks the task without a lease or an attempt, and an event wakes it with its payload", async () => {
    const id = await kit.enqueue(waiter.name, { orderId: "o-1" });
    expect(await kit.runOneAttempt("w1", [waiter])).toEqual({ taskId: id, outcome: "waiting" });
    expect(await taskRow(id)).toMatchObject({ status: "waiting", attempts: 0, lease_owner: null });
    // Nothing to claim while it waits.
    expect(await kit.runOneAttempt("w1", [waiter])).toBeNull();

    // Another order's event does not match.
    const other = await sendEvent(t.pool, { name: "order.paid", payload: { orderId: "o-2" } });
    expect(other.deliveredTo).toEqual([]);
    const sent = await sendEvent(t.pool, {
      name: "order.paid",
      payload: { orderId: "o-1", amount: 1200 },
      actor: "test:sender",
    });
    expect(sent.deliveredTo).toEqual([id]);
    expect(await taskRow(id)).toMatchObject({ status: "queued", attempts: 0 });

    expect(await kit.runOneAttempt("w1", [waiter])).toEqual({ taskId: id, outcome: "succeeded" });
    const row = await kit.task(id);
    expect(row.attempts).toBe(1);
    expect(row.result).toMatchObject({
      before: "done",
      got: {
        timedOut: false,
        event: { id: sent.event.id, name: "order.paid", payload: { orderId: "o-1", amount: 1200 } },
      },
    });
    expect(await kit.kinds(id)).toEqual([
      "task.enqueued",
      "step.completed",
      "event.waiting",
      "event.delivered",
      "task.succeeded",
    ]);
    // Two claims (the wait gave its attempt back): each start on its claim's first entry.
    expect((await kit.starts(id)).map((s) => [s.on, s.attempt])).toEqual([
      ["step.completed", 1],
      ["task.succeeded", 1],
    ]);
    const delivered = (await kit.entries(id)).find((e) => e.kind === "event.delivered");
    expect(delivered?.actor).toBe("test:sender");
    const { rows: received } = await t.pool.query(
      "select data from ledger_entries where stream = $1 and kind = 'event.received'",
      [`event:${sent.event.id}`],
    );
    expect(received[0]?.data).toMatchObject({ name: "order.paid", deliveredTo: [id] });
    expect(await waitRow(id)).toEqual([
      expect.objectContaining({ status: "delivered", event_id: sent.event.id }),
    ]);
  });

  it("times out at the deadline with { timedOut: true }, and a later event does not reach it", async () => {
    const id = await kit.enqueue(waiter.name, { orderId: "o-timeout", timeoutMs: 200 });
    expect((await kit.runOneAttempt("w1", [waiter]))?.outcome).toBe("waiting");
    const parked = await taskRow(id);
    expect(parked.status).toBe("waiting");
    expect(parked.run_at.getTime()).toBeGreaterThan(Date.now() - 1_000);
    expect(await kit.runOneAttempt("w1", [waiter])).toBeNull();
    await new Promise((r) => setTimeout(r, 300));
    expect(await kit.runOneAttempt("w1", [waiter])).toEqual({ taskId: id, outcome: "succeeded" });
    expect((await kit.task(id)).result).toMatchObject({ got: { timedOut: true } });
    expect((await kit.task(id)).attempts).toBe(1);
    expect(await kit.kinds(id)).toContain("event.timed_out");
    expect(await waitRow(id)).toEqual([expect.objectContaining({ status: "timed_out" })]);
    const late = await sendEvent(t.pool, { name: "order.paid", payload: { orderId: "o-timeout" } });
    expect(late.deliveredTo).toEqual([]);
  });

  it("takes an event sent before the wait started, but not an expired one", async () => {
    const early = await sendEvent(t.pool, {
      name: "order.paid",
      payload: { orderId: "o-early", via: "kept" },
    });
    const id = await kit.enqueue(waiter.name, { orderId: "o-early" });
    expect(await kit.runOneAttempt("w1", [waiter])).toEqual({ taskId: id, outcome: "succeeded" });
    expect((await kit.task(id)).result).toMatchObject({
      got: { timedOut: false, event: { id: early.event.id, payload: { via: "kept" } } },
    });
    expect(await kit.kinds(id)).not.toContain("event.waiting");

    await sendEventCommand(t.pool, operator("test"), {
      name: "order.paid",
      payload: { orderId: "o-expired" },
      keepMs: 0,
    });
    const late = await kit.enqueue(waiter.name, { orderId: "o-expired" });
    expect((await kit.runOneAttempt("w1", [waiter]))?.outcome).toBe("waiting");
    expect((await taskRow(late)).status).toBe("waiting");
  });

  it("delivers a key once, and one event to each matching waiter once", async () => {
    const a = await kit.enqueue(waiter.name, { orderId: "o-shared" });
    const b = await kit.enqueue(waiter.name, { orderId: "o-shared" });
    expect((await kit.runOneAttempt("w1", [waiter]))?.outcome).toBe("waiting");
    expect((await kit.runOneAttempt("w2", [waiter]))?.outcome).toBe("waiting");

    const first = await sendEvent(t.pool, {
      name: "order.paid",
      payload: { orderId: "o-shared" },
      key: "pay-o-shared",
    });
    expect(first.created).toBe(true);
    expect([...first.deliveredTo].sort()).toEqual([a, b].sort());
    const again = await sendEvent(t.pool, {
      name: "order.paid",
      payload: { orderId: "o-shared" },
      key: "pay-o-shared",
    });
    expect(again).toMatchObject({ created: false, event: { id: first.event.id } });
    await expect(
      sendEvent(t.pool, { name: "order.paid", payload: { orderId: "other" }, key: "pay-o-shared" }),
    ).rejects.toThrow(/was used for another event/);

    for (const w of ["w1", "w2"])
      expect((await kit.runOneAttempt(w, [waiter]))?.outcome).toBe("succeeded");
    for (const id of [a, b]) {
      expect((await kit.kinds(id)).filter((k) => k === "event.delivered")).toHaveLength(1);
    }
    const { rows } = await t.pool.query(
      "select count(*)::int as n from events where idempotency_key = 'pay-o-shared'",
    );
    expect(rows[0].n).toBe(1);
    // The kept event does not reach either task again at a later wait: each has had it.
    const { rows: waits } = await t.pool.query(
      "select count(*)::int as n from event_waits where event_id = $1",
      [first.event.id],
    );
    expect(waits[0].n).toBe(2);
  });

  it("refuses a bad name or match, naming it", async () => {
    await expect(sendEvent(t.pool, { name: "Order Paid" })).rejects.toThrow(/name: must be dotted/);
    await expect(sendEvent(t.pool, { name: "order.paid", payload: [1] })).rejects.toThrow(
      /payload: must be a JSON object/,
    );
  });

  it("a replay from the wait gets the same event again, without waiting", async () => {
    let failures = 1;
    const picky = defineAgent({
      name: "event-replayer",
      input: z.object({ k: z.string() }),
      tools: {},
      run: async (ctx, input) => {
        const got = await ctx.waitForEvent("order.paid", { match: { orderId: input.k } });
        if (failures-- > 0) throw new NonRetryableError("not this time");
        return { got };
      },
    });
    const id = await kit.enqueue(picky.name, { k: "o-replay" });
    expect((await kit.runOneAttempt("w1", [picky]))?.outcome).toBe("waiting");
    const sent = await sendEvent(t.pool, { name: "order.paid", payload: { orderId: "o-replay" } });
    expect((await kit.runOneAttempt("w1", [picky]))?.outcome).toBe("dead");
    const replayed = await replayTask(t.pool, operator("test"), {
      taskId: id,
      version: (await kit.task(id)).version,
      fromStep: 1,
    });
    expect(replayed.ok).toBe(true);
    expect((await kit.runOneAttempt("w1", [picky]))?.outcome).toBe("succeeded");
    expect((await kit.task(id)).result).toMatchObject({
      got: { timedOut: false, event: { id: sent.event.id } },
    });
    const delivered = (await kit.entries(id)).filter((e) => e.kind === "event.delivered");
    expect(delivered.map((e) => (e.data as { replayed?: boolean }).replayed ?? false)).toEqual([
      false,
      true,
    ]);
  });
});
