// Events under the crash harness: three worker processes on one database, killed (SIGKILL) after
// a wait took its event (the wait closed, its step and entries written) and before that commits,
// and after the receipt's provider answered. Most events are sent before the workers start (kept,
// taken as each wait begins: the killed boundary), the rest while they run. Every task gets
// exactly its own event once, none is lost, and each receipt is sent under one key.
import path from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { crashTest, createTestDatabase } from "../../entry/testing";
import { sendEvent } from "../../lib/sdk/send-event";
import { startKeyedReceiver } from "../testing/fixtures/keyed-receiver";

const db = await createTestDatabase({ serverUrl: inject("testCluster").superUrl });
afterAll(() => db.drop());

const ORDERS = 24;

describe("events under kill -9", () => {
  it("takes each event once across 3 workers killed as they take it", async () => {
    const receiver = await startKeyedReceiver("order", (order) => ({ sent: order }));
    const { keysOf } = receiver;
    const orders = Array.from({ length: ORDERS }, (_, i) => `o${i}`);
    const send = async (order: string) =>
      (await sendEvent(db.pool, { name: "order.paid", payload: { order }, key: `paid-${order}` }))
        .event.id;
    const eventOf = new Map<string, string>();
    // Two thirds paid before any worker runs: kept, and taken when each wait begins.
    for (const order of orders.slice(0, 16)) eventOf.set(order, await send(order));
    try {
      const late = (async () => {
        await new Promise((r) => setTimeout(r, 3_000));
        for (const order of orders.slice(16)) eventOf.set(order, await send(order));
      })();
      const [result] = await Promise.all([
        crashTest(db, {
          agentsModule: path.join(
            import.meta.dirname,
            "..",
            "testing",
            "fixtures",
            "event-agents.ts",
          ),
          tasks: orders.map((order) => ({ agent: "await-payment", input: { order } })),
          // Only the wait's own boundary is armed: every kill landed there.
          faultPoints: { "event.taken": 0.4 },
          kills: 5,
          workers: 3,
          timeoutMs: 120_000,
          env: {
            RECEIVER_URL: `${receiver.url}/receipts`,
          },
        }),
        late,
      ]);
      expect(result.kills).toBeGreaterThanOrEqual(5);
      expect(result.tasks.map((t) => t.status)).toEqual(Array(ORDERS).fill("succeeded"));
      for (const [i, t] of result.tasks.entries()) {
        const order = orders[i] ?? "";
        expect(t.result).toEqual({ paid: true, event: eventOf.get(order) });
        // The entries of a take that died with its transaction are gone with it: one remains.
        expect(t.ledger.filter((e) => e.kind === "event.delivered")).toHaveLength(1);
      }
      const waits = await db.pool.query<{ n: number; tasks: number; events: number }>(
        `select count(*)::int as n, count(distinct task_id)::int as tasks,
                count(distinct event_id)::int as events
         from event_waits where status = 'delivered'`,
      );
      expect(waits.rows[0]).toEqual({ n: ORDERS, tasks: ORDERS, events: ORDERS });
      expect(keysOf.size).toBe(ORDERS);
      expect([...keysOf.values()].every((k) => k.size === 1)).toBe(true);
      console.log(
        `events crash: ${result.kills} kills at event.taken over ${result.workers} worker processes (3 at a time); ${ORDERS} tasks, each took its own event once (16 kept before the workers started), 0 consumed twice, 0 lost`,
      );
    } finally {
      receiver.close();
    }
    // Above the harness's own 120 s, so a stuck run fails with its report, not a bare timeout.
  }, 150_000);
});
