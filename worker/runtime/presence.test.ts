// Worker presence on real PostgreSQL: a worker's row appears at start, its last_seen_at moves
// on with the heartbeat, a graceful stop sets stopped_at; rows long stopped or unseen are
// dropped at the next start, except the newest fleet row (an outage is named after it).
import { describe, expect, it, vi } from "vitest";
import { setUpTestDatabase } from "../../db/testing/database";
import { startWorker } from "./worker";

const t = await setUpTestDatabase("worker_presence");

type Row = { role: string; agents: string[]; last_seen_at: Date; stopped_at: Date | null };
async function row(id: string): Promise<Row | undefined> {
  const { rows } = await t.pool.query<Row>(
    "select role, agents, last_seen_at, stopped_at from workers where id = $1",
    [id],
  );
  return rows[0];
}

describe("worker presence", () => {
  it("registers at start, advances last_seen_at with heartbeats, sets stopped_at on stop", async () => {
    const worker = await startWorker({
      pool: t.pool,
      agents: [],
      concurrency: 1,
      leaseMs: 300,
      pollMs: 50,
      id: "presence-1",
      log: () => {},
    });
    const first = await row("presence-1");
    expect(first).toMatchObject({ role: "worker", agents: [], stopped_at: null });
    const startSeen = first?.last_seen_at.getTime() ?? Number.NaN;
    await vi.waitFor(
      async () => {
        expect((await row("presence-1"))?.last_seen_at.getTime()).toBeGreaterThan(startSeen);
      },
      { timeout: 10_000, interval: 50 },
    );
    await worker.stop(1_000);
    const stopped = await row("presence-1");
    expect(stopped?.stopped_at).toBeInstanceOf(Date);
  });

  it("a web-hosted alert worker registers as role alerts", async () => {
    const worker = await startWorker({
      pool: t.pool,
      agents: [],
      concurrency: 1,
      role: "alerts",
      id: "presence-alerts",
      log: () => {},
    });
    await worker.stop(1_000);
    expect((await row("presence-alerts"))?.role).toBe("alerts");
  });

  it("drops rows stopped or unseen for over a day at start, but keeps the newest fleet row", async () => {
    await t.pool.query("delete from workers");
    await t.pool.query(
      `insert into workers (id, host, pid, role, agents, last_seen_at, stopped_at) values
         ('old-stopped', 'h', 1, 'worker', '{}', now() - interval '3 days', now() - interval '3 days'),
         ('old-unseen', 'h', 2, 'worker', '{}', now() - interval '2 days', null),
         ('old-alerts', 'h', 3, 'alerts', '{}', now() - interval '2 days', null)`,
    );
    const worker = await startWorker({
      pool: t.pool,
      agents: [],
      concurrency: 1,
      role: "alerts",
      id: "presence-housekeeper",
      log: () => {},
    });
    await worker.stop(1_000);
    const { rows } = await t.pool.query<{ id: string }>("select id from workers order by id");
    expect(rows.map((r) => r.id)).toEqual(["old-unseen", "presence-housekeeper"]);
  });
});
