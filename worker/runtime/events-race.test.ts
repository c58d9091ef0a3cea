// The deadline and an event at the same moment, staged precisely on a real database: an event
// sent while a claim at the deadline holds the task waits for it and then finds the task no
// longer waiting (the run times out, the event is kept for later waits); a claim while a
// delivery holds the task skips it, and the task then runs with the event. Never both.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../db/testing/database";
import { operator } from "../../lib/domain/access";
import { defineAgent } from "../../lib/sdk/define";
import {
  deliverToOpenWaits,
  insertEvent,
  lockEventName,
  toReceived,
} from "../../lib/server/commands/event-sql";
import { sendEvent } from "../../lib/server/commands/send-event";
import { claimTasks } from "./task-sql";
import { runtimeTestKit } from "./test-support";

const t = await setUpTestDatabase("events_race");
const kit = runtimeTestKit(t.pool);

const racer = defineAgent({
  name: "event-racer",
  input: z.object({ k: z.string() }),
  tools: {},
  run: async (ctx, input) => ({
    got: await ctx.waitForEvent("race.go", { match: { k: input.k }, timeoutMs: 60_000 }),
  }),
});

const send = (k: string) =>
  sendEvent(t.pool, operator("test"), { name: "race.go", payload: { k }, keepMs: 60_000 });

/** A parked task whose deadline has just passed. */
async function parkedPastDeadline(k: string): Promise<string> {
  const id = await kit.enqueue(racer.name, { k });
  expect((await kit.runOneAttempt("w1", [racer]))?.outcome).toBe("waiting");
  await t.pool.query("update event_waits set deadline = now() where task_id = $1", [id]);
  await t.pool.query("update tasks set run_at = now() where id = $1", [id]);
  return id;
}

describe("an event at the deadline", () => {
  it("sent while the claim holds the task: the wait times out, the event reaches nobody", async () => {
    const id = await parkedPastDeadline("claimed-first");
    const claimer = await t.pool.connect();
    try {
      await claimer.query("begin");
      const claimed = await claimTasks(claimer, "w-claim", [racer.name], 1, 30_000);
      expect(claimed.map((c) => c.id)).toEqual([id]);
      const sending = send("claimed-first");
      // The send waits on the task's row.
      const early = await Promise.race([
        sending.then(() => "sent"),
        sleep(300).then(() => "waiting"),
      ]);
      expect(early).toBe("waiting");
      await claimer.query("commit");
      const sent = await sending;
      expect(sent.ok && sent.value.deliveredTo).toEqual([]);
    } finally {
      claimer.release();
    }
    // The claimed attempt never ran; as a crashed one would, it returns to the queue.
    await t.pool.query(
      "update tasks set status = 'queued', lease_owner = null, lease_expires_at = null where id = $1",
      [id],
    );
    expect((await kit.runOneAttempt("w1", [racer]))?.outcome).toBe("succeeded");
    expect((await kit.task(id)).result).toEqual({ got: { timedOut: true } });
  });

  it("claimed while the delivery holds the task: the claim skips it, then the task runs with the event", async () => {
    const id = await parkedPastDeadline("delivered-first");
    const sender = await t.pool.connect();
    try {
      // A send's statements, held open before its commit.
      await sender.query("begin");
      await lockEventName(sender, "race.go");
      const row = await insertEvent(sender, {
        name: "race.go",
        payload: { k: "delivered-first" },
        key: null,
        keepMs: 60_000,
        actor: "test",
        task: null,
      });
      const reached = await deliverToOpenWaits(sender, toReceived(row), null);
      expect(reached.map((r) => r.taskId)).toEqual([id]);
      expect(await claimTasks(t.pool, "w-claim", [racer.name], 1, 30_000)).toEqual([]);
      await sender.query("commit");
    } finally {
      sender.release();
    }
    expect((await kit.task(id)).status).toBe("queued");
    expect((await kit.runOneAttempt("w1", [racer]))?.outcome).toBe("succeeded");
    expect((await kit.task(id)).result).toMatchObject({
      got: { timedOut: false, event: { payload: { k: "delivered-first" } } },
    });
  });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
