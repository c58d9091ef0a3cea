// ctx.spawn and ctx.join under the crash harness: three worker processes on one database, killed (SIGKILL)
// right after a child's enqueue committed and before the parent's journal holds it, and after a
// child's provider answered. Every parent ends with exactly its children, each performed once.
import path from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { crashTest, createTestDatabase } from "../../entry/testing";
import { startKeyedReceiver } from "../testing/fixtures/keyed-receiver";

const db = await createTestDatabase({ serverUrl: inject("testCluster").superUrl });
afterAll(() => db.drop());

const ORDERS = 12;
const ITEMS = 4;

describe("ctx.spawn under kill -9", () => {
  it("enqueues every child once across 3 workers killed after the enqueue", async () => {
    const receiver = await startKeyedReceiver("parcel", (parcel) => ({ delivered: parcel }));
    const { keysOf } = receiver;
    try {
      const result = await crashTest(db, {
        agentsModule: path.join(
          import.meta.dirname,
          "..",
          "testing",
          "fixtures",
          "spawn-agents.ts",
        ),
        tasks: Array.from({ length: ORDERS }, (_, i) => ({
          agent: "dispatcher",
          input: { order: `o${i}`, items: ITEMS },
        })),
        faultPoints: { "spawn.enqueued": 0.15, "effect.returned": 0.15 },
        kills: 6,
        workers: 3,
        descendants: true,
        timeoutMs: 120_000,
        env: {
          RECEIVER_URL: `${receiver.url}/deliver`,
        },
      });
      expect(result.kills).toBeGreaterThanOrEqual(6);
      expect(result.tasks.map((t) => t.status)).toEqual(Array(ORDERS).fill("succeeded"));
      const { rows } = await db.pool.query<{ parent: string; parcel: string; status: string }>(
        `select p.input->>'order' as parent, c.input->>'parcel' as parcel, c.status
         from tasks c join tasks p on p.id = c.parent_id order by 1, 2`,
      );
      // Exactly ITEMS children per parent, none twice, all done.
      expect(rows).toHaveLength(ORDERS * ITEMS);
      expect(new Set(rows.map((r) => r.parcel)).size).toBe(ORDERS * ITEMS);
      expect(rows.every((r) => r.parcel.startsWith(`${r.parent}/`))).toBe(true);
      expect(rows.every((r) => r.status === "succeeded")).toBe(true);
      // Each parcel reached the provider under one key only.
      expect(keysOf.size).toBe(ORDERS * ITEMS);
      expect([...keysOf.values()].every((k) => k.size === 1)).toBe(true);
      // Each parent's journal holds its children, in the order it spawned them.
      // and joined them: each parent ran on after all its children succeeded.
      for (const t of result.tasks) {
        const r = t.result as { children: string[]; statuses: string[] };
        expect(r.children).toHaveLength(ITEMS);
        expect(r.statuses).toEqual(Array(ITEMS).fill("succeeded"));
        expect(t.ledger.map((e) => e.kind)).toContain("children.joined");
      }
      // Children whose enqueue and journal entry were written by different workers: the first
      // died (or lost its lease) in between, and its successor got the same child back.
      const split = await db.pool.query<{ n: number }>(
        `select count(*)::int as n
         from tasks c
         join ledger_entries e on e.task_id = c.parent_id and e.kind = 'step.completed'
                              and e.data->'result'->>'taskId' = c.id::text
         where c.parent_id is not null and e.actor <> c.created_by`,
      );
      expect(split.rows[0]?.n).toBeGreaterThanOrEqual(1);
      console.log(
        `spawn crash: ${result.kills} kills over ${result.workers} worker processes (3 at a time), ${rows.length} children, ${split.rows[0]?.n} enqueued by a worker that died before journaling them, 0 enqueued twice`,
      );
    } finally {
      receiver.close();
    }
    // Above the harness's own 120 s, so a stuck run fails with its report, not a bare timeout.
  }, 150_000);
});
