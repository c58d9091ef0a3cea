// A tool's rate limit holds across worker processes: three workers on one database, 60 tasks
// of a tool limited to 10 calls a second; no second holds more than 10 of the slots the calls
// went out on, and every task succeeds with its effect performed once.
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../db/testing/database";
import { enqueueMany } from "../../lib/sdk/enqueue-many";
import { waitSettled } from "../testing/task-report";

const t = await setUpTestDatabase("rate_limit_fleet");
const bin = fileURLToPath(new URL("../../bin/agent-ledger.mjs", import.meta.url));
const agentsModule = path.join(import.meta.dirname, "../testing/fixtures/rate-limited-agents.ts");

const received: { n: number; at: number }[] = [];
const performed = new Set<string>();
const provider = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => {
    body += c;
  });
  req.on("end", () => {
    const { n } = JSON.parse(body) as { n: number };
    received.push({ n, at: Date.now() });
    performed.add(String(req.headers["idempotency-key"]));
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ n }));
  });
});
await new Promise<void>((r) => provider.listen(0, "127.0.0.1", r));
const workers: ChildProcess[] = [];
afterAll(async () => {
  await Promise.all(
    workers.map(
      (w) =>
        new Promise<void>((resolve) => {
          if (w.exitCode !== null || w.signalCode !== null) return resolve();
          w.once("exit", () => resolve());
          w.kill("SIGTERM");
        }),
    ),
  );
  provider.close();
});

async function waitFor(test: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > until) throw new Error("the workers did not start");
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The most calls any window of `periodMs` holds, by the times `at` picks. */
function busiestWindow(times: number[], periodMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while ((sorted[end] ?? 0) - (sorted[start] ?? 0) >= periodMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

describe("a tool's rate limit across worker processes", () => {
  it("lets at most 10 calls a second go to the provider from three worker processes", async () => {
    const url = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/calls`;
    for (let i = 0; i < 3; i++) {
      workers.push(
        spawn(process.execPath, [bin, "worker", "--agents", agentsModule, "--concurrency", "8"], {
          stdio: ["ignore", "ignore", "inherit"],
          env: {
            ...process.env,
            PROVIDER_URL: url,
            DATABASE_URL: t.appUrl,
            DATABASE_OWNER_URL: "",
            AGENT_LEDGER_LEASE_MS: "6000",
            LOG_LEVEL: "warn",
          },
        }),
      );
    }
    // Started and idle first (loading the agents module is the busiest part of a worker's
    // life), so the calls' times are not skewed by a worker still starting.
    await waitFor(async () => {
      const { rows } = await t.pool.query(
        "select count(*)::int as n from workers where stopped_at is null",
      );
      return rows[0].n === 3;
    });
    const tasks = await enqueueMany(
      t.pool,
      Array.from({ length: 60 }, (_, n) => ({ agent: "limited", input: { n } })),
    );
    const ids = tasks.map((task) => task.taskId);
    await waitSettled(t.pool, ids, 90_000);
    const { rows } = await t.pool.query<{ status: string; attempts: number; n: number }>(
      "select status, attempts, count(*)::int as n from tasks where id = any($1) group by 1, 2",
      [ids],
    );
    expect(rows).toEqual([{ status: "succeeded", attempts: 1, n: 60 }]);
    expect(performed.size).toBe(60);
    expect(new Set(received.map((r) => r.n)).size).toBe(60);
    // Each call was let through at its slot's stamp (the database's clock, recorded with its
    // effect.succeeded): no second of them holds more than 10. What reaches the provider can
    // bunch by each worker's delay between the slot and its request (under load here, up to a
    // few hundred ms; docs/writing-agents.md says to leave headroom for a strict provider).
    const { rows: slots } = await t.pool.query<{ slot_at: string }>(
      "select data->>'slotAt' as slot_at from ledger_entries where kind = 'effect.succeeded'",
    );
    expect(slots).toHaveLength(60);
    expect(
      busiestWindow(
        slots.map((r) => Date.parse(r.slot_at)),
        1_000,
      ),
    ).toBe(10);
    // The limit is what slowed them: the 60 calls took at least five full windows.
    const at = received.map((r) => r.at).sort((a, b) => a - b);
    expect((at[59] ?? 0) - (at[0] ?? 0)).toBeGreaterThanOrEqual(4_900);
    // A wait is never longer than the period, a third of the lease: sat out, never handed back.
    const { rows: waits } = await t.pool.query<{ handed_back: boolean; n: number }>(
      `select (data->>'handedBack')::boolean as handed_back, count(*)::int as n from ledger_entries
       where kind = 'effect.rate_limited' group by 1`,
    );
    expect(waits).toMatchObject([{ handed_back: false }]);
  }, 120_000);
});
