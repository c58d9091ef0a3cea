// Housekeeping against a real database: expired events nothing refers to and rate-limit buckets
// idle for longer than any period go; an event still in its window (or its grace), an event a
// wait took, a callback link's event and a bucket with a recent stamp stay; a take that stamps
// a bucket while it is being deleted wins; one process housekeeps at a time, and two at once
// change nothing more than one.
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../db/testing/database";
import { testViewer } from "../../lib/auth/testing";
import { operator } from "../../lib/domain/access";
import type { WaitResult } from "../../lib/domain/events";
import { defineAgent } from "../../lib/sdk/define";
import { NonRetryableError } from "../../lib/sdk/errors";
import { replayTask } from "../../lib/server/commands/replay-task";
import { deliverEvent, sendEvent } from "../../lib/server/commands/send-event";
import { readTaskWaits } from "../../lib/server/queries/task-waits";
import { housekeeper } from "./housekeeping";
import { takeRateLimitSlot } from "./rate-limit";
import { runtimeTestKit } from "./test-support";
import { startWorker } from "./worker";

const t = await setUpTestDatabase("housekeeping");
const kit = runtimeTestKit(t.pool);

/** Orders whose task already failed once after its wait (`failOnce`), so a replay can follow. */
const failedOnce = new Set<string>();
const waiter = defineAgent({
  name: "hk-waiter",
  input: z.object({ orderId: z.string(), failOnce: z.boolean().optional() }),
  tools: {},
  run: async (ctx, input): Promise<WaitResult> => {
    const got = await ctx.waitForEvent("hk.paid", { match: { orderId: input.orderId } });
    if (input.failOnce && !failedOnce.has(input.orderId)) {
      failedOnce.add(input.orderId);
      throw new NonRetryableError("dead once, to be replayed");
    }
    return got;
  },
});

async function send(orderId: string, keepMs = 86_400_000): Promise<string> {
  const sent = await sendEvent(t.pool, operator("test"), {
    name: "hk.paid",
    payload: { orderId },
    keepMs,
  });
  if (!sent.ok) throw new Error(sent.message);
  return sent.value.event.id;
}

/** Moves an event's arrival and expiry back in time: it expired `agoMs` ago. */
async function expire(id: string, agoMs: number): Promise<void> {
  await t.pool.query(
    `update events set received_at = now() - ($2 + 1000) * interval '1 millisecond',
                       expires_at = now() - $2 * interval '1 millisecond'
     where id = $1`,
    [id, agoMs],
  );
}

async function eventExists(id: string): Promise<boolean> {
  const { rowCount } = await t.pool.query("select 1 from events where id = $1", [id]);
  return rowCount === 1;
}

/** A bucket whose stamps are these many milliseconds old (oldest first). */
async function bucket(name: string, agesMs: number[]): Promise<void> {
  await t.pool.query(
    `insert into rate_limits (bucket, stamps)
     select $1, coalesce(array_agg(now() - a * interval '1 millisecond' order by a desc), '{}')
     from unnest($2::bigint[]) a`,
    [name, agesMs],
  );
}

async function bucketStamps(name: string): Promise<number | null> {
  const { rows } = await t.pool.query<{ n: number }>(
    "select cardinality(stamps) as n from rate_limits where bucket = $1",
    [name],
  );
  return rows[0]?.n ?? null;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Resolves once some session waits for a row lock in a statement that mentions `text`. */
async function blockedOn(text: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const { rowCount } = await t.pool.query(
      `select 1 from pg_stat_activity
       where datname = current_database() and wait_event_type = 'Lock' and query like '%' || $1 || '%'`,
      [text],
    );
    if (rowCount) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no session waited on a lock in a statement with "${text}"`);
}

async function inTransaction(pool: pg.Pool) {
  const client = await pool.connect();
  await client.query("begin");
  return {
    client,
    end: async (how: "commit" | "rollback") => {
      await client.query(how);
      client.release();
    },
  };
}

describe("housekeeping: events", () => {
  it("deletes an expired event nothing took, once its grace has passed, and keeps one still in its window", async () => {
    const gone = await send("o-gone");
    const inGrace = await send("o-grace");
    const kept = await send("o-kept");
    await expire(gone, 2 * HOUR);
    await expire(inGrace, 10 * 60_000);

    const result = await housekeeper(t.pool)();
    expect(result.ran).toBe(true);
    expect(result.events).toBeGreaterThanOrEqual(1);
    expect(await eventExists(gone)).toBe(false);
    expect(await eventExists(inGrace)).toBe(true);
    expect(await eventExists(kept)).toBe(true);

    // The event still in its window is what a wait that starts now takes.
    const id = await kit.enqueue(waiter.name, { orderId: "o-kept" });
    expect(await kit.runOneAttempt("w1", [waiter])).toEqual({ taskId: id, outcome: "succeeded" });
    const done = (await kit.task(id)).result as WaitResult;
    expect(done).toMatchObject({ timedOut: false, event: { id: kept } });
  });

  it("keeps an expired event a wait took: the task page shows it and a replay gets it again", async () => {
    const id = await kit.enqueue(waiter.name, { orderId: "o-taken", failOnce: true });
    expect((await kit.runOneAttempt("w1", [waiter]))?.outcome).toBe("waiting");
    const event = await send("o-taken");
    expect((await kit.runOneAttempt("w1", [waiter]))?.outcome).toBe("dead");
    await expire(event, 2 * HOUR);

    await housekeeper(t.pool, { eventGraceMs: 0 })();
    expect(await eventExists(event)).toBe(true);
    const waits = await readTaskWaits(t.pool, testViewer("reviewer"), id);
    expect(waits.waits).toMatchObject([{ status: "delivered", eventId: event }]);

    const replayed = await replayTask(t.pool, operator("test"), {
      taskId: id,
      version: (await kit.task(id)).version,
      fromStep: 1,
    });
    expect(replayed.ok).toBe(true);
    expect((await kit.runOneAttempt("w1", [waiter]))?.outcome).toBe("succeeded");
    expect((await kit.task(id)).result).toMatchObject({ timedOut: false, event: { id: event } });
  });

  it("keeps a callback link's expired event, so the link stays used", async () => {
    const task = await kit.enqueue(waiter.name, { orderId: "o-link" }, { held: true });
    const sent = await deliverEvent(t.pool, `callback:${task}.1`, {
      name: "hk.confirmed",
      payload: { callback: 1 },
      key: `callback:${task}.1`,
      keepMs: 0,
      task,
    });
    if (!sent.ok) throw new Error(sent.message);
    await expire(sent.value.event.id, 2 * HOUR);
    await housekeeper(t.pool)();
    expect(await eventExists(sent.value.event.id)).toBe(true);
  });

  it("finds events that expire after an earlier pass of the same process", async () => {
    const pass = housekeeper(t.pool, { batch: 2 });
    const first = await send("o-first");
    await expire(first, 3 * HOUR);
    await pass();
    expect(await eventExists(first)).toBe(false);
    const later = await send("o-later");
    await expire(later, 2 * HOUR);
    await pass();
    expect(await eventExists(later)).toBe(false);
  });
});

describe("housekeeping: rate limits", () => {
  it("deletes buckets whose newest stamp is older than a day and keeps any with a stamp inside it", async () => {
    await bucket("hk-idle", [3 * DAY, DAY + HOUR]);
    await bucket("hk-empty", []);
    await bucket("hk-recent", [3 * DAY, DAY - HOUR]);
    await bucket("hk-fresh", [1_000]);
    await housekeeper(t.pool)();
    expect(await bucketStamps("hk-idle")).toBeNull();
    expect(await bucketStamps("hk-empty")).toBeNull();
    expect(await bucketStamps("hk-recent")).toBe(2);
    expect(await bucketStamps("hk-fresh")).toBe(1);
  });

  it("deletes them in batches until none is left", async () => {
    for (let i = 0; i < 7; i++) await bucket(`hk-many-${i}`, [2 * DAY]);
    const result = await housekeeper(t.pool, { batch: 3 })();
    expect(result.rateLimits).toBe(7);
    const { rows } = await t.pool.query("select 1 from rate_limits where bucket like 'hk-many-%'");
    expect(rows).toHaveLength(0);
  });

  it("leaves a bucket that a take stamps while the delete waits for it", async () => {
    await bucket("hk-raced", [2 * DAY]);
    const take = await inTransaction(t.pool);
    const slot = await takeRateLimitSlot(take.client, "hk-raced", { limit: 5, periodMs: 1_000 });
    expect(slot.granted).toBe(true);
    // The delete chose the bucket as idle from its snapshot, then waits for the take's row lock.
    const pass = housekeeper(t.pool)();
    await blockedOn("delete from rate_limits");
    await take.end("commit");
    await pass;
    expect(await bucketStamps("hk-raced")).toBe(2);
  });

  it("a take after the delete finds no bucket and starts one", async () => {
    await bucket("hk-reborn", [2 * DAY]);
    await housekeeper(t.pool)();
    expect(await bucketStamps("hk-reborn")).toBeNull();
    const slot = await takeRateLimitSlot(t.pool, "hk-reborn", { limit: 1, periodMs: 1_000 });
    expect(slot.granted).toBe(true);
    expect(await bucketStamps("hk-reborn")).toBe(1);
  });
});

describe("housekeeping across processes", () => {
  it("skips its pass while another process housekeeps", async () => {
    await bucket("hk-locked", [2 * DAY]);
    const other = await inTransaction(t.pool);
    await other.client.query(
      "select pg_advisory_xact_lock(hashtextextended('agent-ledger housekeeping', 0))",
    );
    expect(await housekeeper(t.pool)()).toEqual({
      ran: false,
      events: 0,
      rateLimits: 0,
      partitions: 0,
    });
    expect(await bucketStamps("hk-locked")).toBe(1);
    await other.end("rollback");
    expect((await housekeeper(t.pool)()).rateLimits).toBe(1);
  });

  it("two passes at once delete each row once and keep what must stay", async () => {
    await housekeeper(t.pool, { eventGraceMs: 0 })();
    const events = await Promise.all([send("o-c1"), send("o-c2"), send("o-c3")]);
    for (const e of events) await expire(e, 2 * HOUR);
    const live = await send("o-c-live");
    for (let i = 0; i < 5; i++) await bucket(`hk-c-${i}`, [2 * DAY]);
    await bucket("hk-c-live", [HOUR]);

    const results = await Promise.all([
      housekeeper(t.pool, { batch: 2 })(),
      housekeeper(t.pool, { batch: 2 })(),
    ]);
    expect(results.reduce((n, r) => n + r.events, 0)).toBe(3);
    expect(results.reduce((n, r) => n + r.rateLimits, 0)).toBe(5);
    for (const e of events) expect(await eventExists(e)).toBe(false);
    expect(await eventExists(live)).toBe(true);
    expect(await bucketStamps("hk-c-live")).toBe(1);
    // A pass skipped for the other's lock leaves the rest to the next one.
    const again = await Promise.all([housekeeper(t.pool)(), housekeeper(t.pool)()]);
    expect(again.reduce((n, r) => n + r.events + r.rateLimits, 0)).toBe(0);
  });

  it("runs in the worker", async () => {
    await bucket("hk-worker", [2 * DAY]);
    const worker = await startWorker({
      pool: t.pool,
      agents: [],
      concurrency: 1,
      housekeepingMs: 50,
      log: () => {},
    });
    try {
      for (let i = 0; i < 100 && (await bucketStamps("hk-worker")) !== null; i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(await bucketStamps("hk-worker")).toBeNull();
    } finally {
      await worker.stop(1_000);
    }
  });
});
