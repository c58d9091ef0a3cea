// Flow control under load (issue 21): refunds for 3 merchants limited to 5 running per merchant,
// through a tool limited to 10 calls a second, on 3 worker processes, against a payments service
// that answers 429 to anything over 10 in any second. Measured from the ledger (each attempt from
// its start, folded into its first entry, to the entry that ended it) and from the provider's own arrival log:
// never more than 5 running per merchant, never more than 10 refunds let through in any second,
// and no attempt spent on a 429 (one attempt each, none dead). FLOW_LOAD_TASKS sets the size
// (60 here, 300 for the figures in the notes).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { crashTest, createTestDatabase } from "../../entry/testing";
import { CALLS_PER_SECOND, PER_MERCHANT } from "../testing/fixtures/flow-agents";
import { mostAtOnce } from "../testing/fixtures/keyed-receiver";

const TASKS = Number(process.env.FLOW_LOAD_TASKS ?? "60");
const MERCHANTS = ["acme", "globex", "initech"];
/** The provider takes this long per refund: tasks overlap, so the concurrency limit binds. */
const PROVIDER_MS = 150;

const db = await createTestDatabase({ serverUrl: inject("testCluster").superUrl });
afterAll(() => db.drop());

/** The most times in any window of `ms` (a sliding window over sorted times). */
function mostInWindow(times: readonly number[], ms: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while ((sorted[end] ?? 0) - (sorted[start] ?? 0) >= ms) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

describe("flow control under load", () => {
  it(`${TASKS} refunds: at most ${PER_MERCHANT} running per merchant, ${CALLS_PER_SECOND} calls a second, no attempt spent on a 429`, async () => {
    const accepted: number[] = [];
    let refused = 0;
    const performed = new Map<string, string>();
    const payments = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => {
        body += c;
      });
      req.on("end", () => {
        const now = Date.now();
        // The provider's own limit, by arrival: over it, nothing is done.
        if (accepted.filter((t) => now - t < 1_000).length >= CALLS_PER_SECOND) {
          refused++;
          res.writeHead(429, { "retry-after": "1", "content-type": "application/json" });
          res.end(JSON.stringify({ error: "rate_limit" }));
          return;
        }
        accepted.push(now);
        const key = String(req.headers["idempotency-key"]);
        const { orderId } = JSON.parse(body) as { orderId: string };
        if (!performed.has(key)) performed.set(key, orderId);
        setTimeout(() => {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ refundId: `re_${orderId}` }));
        }, PROVIDER_MS);
      });
    });
    await new Promise<void>((r) => payments.listen(0, "127.0.0.1", r));
    const started = Date.now();
    try {
      const result = await crashTest(db, {
        agentsModule: path.join(import.meta.dirname, "..", "testing", "fixtures", "flow-agents.ts"),
        tasks: Array.from({ length: TASKS }, (_, n) => ({
          agent: "merchant-refund",
          input: { merchant: MERCHANTS[n % MERCHANTS.length], orderId: `o${n}`, cents: 100 + n },
        })),
        faultPoints: {},
        kills: 0,
        workers: 3,
        concurrency: 10,
        leaseMs: 5_000,
        timeoutMs: 30_000 + TASKS * 500,
        env: {
          PAYMENTS_URL: `http://127.0.0.1:${(payments.address() as AddressInfo).port}/refunds`,
        },
      });
      const seconds = (Date.now() - started) / 1000;
      expect(result.tasks.map((t) => t.status)).toEqual(Array(TASKS).fill("succeeded"));
      // One attempt each with maxAttempts 1: no 429 and no rate-limit wait spent one.
      expect(result.tasks.every((t) => t.attempts === 1)).toBe(true);
      expect(performed.size).toBe(TASKS);

      // Each attempt from its start to the entry that ended it (a hand-back, a success).
      // A start is `attemptStarted.at` on the attempt's first entry, which may also end it.
      const { rows } = await db.pool.query<{ merchant: string; from: Date; to: Date | null }>(
        `select merchant, start_at as from, to_at as to from (
         select merchant, start_at,
                case when ends then at else lead(at) over (partition by task_id order by seq) end as to_at
         from (select e.task_id, e.seq, e.at, e.kind, t.input->>'merchant' as merchant,
                      (e.data->'attemptStarted'->>'at')::timestamptz as start_at,
                      e.kind in ('task.succeeded', 'task.requeued', 'retry.scheduled',
                                 'task.dead_lettered') as ends
               from ledger_entries e join tasks t on t.id = e.task_id
               where t.agent = 'merchant-refund'
                 and (e.data ? 'attemptStarted'
                      or e.kind in ('task.succeeded', 'task.requeued', 'retry.scheduled',
                                    'task.dead_lettered'))) s
         ) a where start_at is not null`,
      );
      const most: Record<string, number> = {};
      for (const m of MERCHANTS) {
        most[m] = mostAtOnce(
          rows
            .filter((r) => r.merchant === m)
            .map((r) => ({ from: r.from.getTime(), to: (r.to ?? r.from).getTime() })),
        );
        expect(most[m]).toBeLessThanOrEqual(PER_MERCHANT);
      }
      // The limit binds: some merchant had its 5 running at once.
      expect(Math.max(...Object.values(most))).toBe(PER_MERCHANT);

      const slots = await db.pool.query<{ at: string }>(
        `select data->>'slotAt' as at from ledger_entries
         where kind = 'effect.succeeded' and data ? 'slotAt'`,
      );
      const slotTimes = slots.rows.map((r) => Date.parse(r.at));
      expect(slotTimes).toHaveLength(TASKS);
      const mostSlots = mostInWindow(slotTimes, 1_000);
      expect(mostSlots).toBeLessThanOrEqual(CALLS_PER_SECOND);
      const mostAccepted = mostInWindow(accepted, 1_000);
      expect(mostAccepted).toBeLessThanOrEqual(CALLS_PER_SECOND);
      const limited = await db.pool.query<{ n: number }>(
        "select count(*)::int as n from ledger_entries where kind = 'effect.rate_limited'",
      );
      console.log(
        `flow load: ${TASKS} refunds over ${MERCHANTS.length} merchants on 3 workers in ${seconds.toFixed(1)} s; most running at once per merchant ${JSON.stringify(most)} (limit ${PER_MERCHANT}); most slots in any 1 s ${mostSlots}, most refunds the provider let through in any 1 s ${mostAccepted} (limit ${CALLS_PER_SECOND}); ${refused} answered 429, ${limited.rows[0]?.n} effect.rate_limited entries; every task 1 attempt, 0 dead, ${performed.size} refunds performed`,
      );
    } finally {
      payments.close();
    }
  }, 240_000);
});
