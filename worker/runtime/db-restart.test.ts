// The database going away under running workers is an event, not a crash: `pg_ctl restart -m
// fast` and `-m immediate` on a cluster of this file's own, with two workers mid-run. Nothing
// dies, every task (enqueued before and after) succeeds, every effect is performed once, and
// tasks held across a short restart continue without waiting out their lease. A worker whose
// database is gone longer than its lease stops acting, says so, and resumes when it is back.
import type pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createPool } from "../../db/client";
import { retryOnConnectionError } from "../../db/retry";
import {
  type RestartableCluster,
  startRestartableCluster,
} from "../../db/testing/restartable-cluster";
import { defineAgent, defineTool } from "../../lib/sdk/define";
import { runtimeTestKit, setGlobalPolicy } from "./test-support";
import { startWorker } from "./worker";
import type { RunningWorker } from "./worker-config";

const cluster: RestartableCluster = await startRestartableCluster();
const pools: pg.Pool[] = [];
const newPool = () => {
  const p = createPool(cluster.appUrl, { max: 12 });
  pools.push(p);
  return p;
};
const pool = newPool();
const kit = runtimeTestKit(pool);
await setGlobalPolicy(pool, { maxAttempts: 10, backoffMs: 10, attemptTimeoutMs: 30_000 });

const workers: RunningWorker[] = [];
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop(1_000)));
  await Promise.all(pools.map((p) => p.end()));
  await cluster.destroy();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Deliveries the test receiver got, by idempotency key. */
const deliveries = new Map<string, number>();
/** Agent runs per task input id (a hand-back reuses the attempt number, so runs are counted). */
const runs = new Map<string, number>();
/** "<id>:<run>" of every run that got as far as calling the tool. */
const reachedTool = new Set<string>();
/** Why each aborted run of the "patient" agent was stopped. */
const abortReasons: string[] = [];

const deliver = defineTool({
  name: "deliver",
  input: z.object({ id: z.string() }),
  intent: (a) => ({ id: a.id }),
  execute: async (a, { idempotencyKey }) => {
    await sleep(60);
    deliveries.set(idempotencyKey, (deliveries.get(idempotencyKey) ?? 0) + 1);
    return { delivered: a.id };
  },
});

const job = defineAgent({
  name: "job",
  input: z.object({ id: z.string() }),
  tools: { deliver },
  run: async (ctx, input) => {
    await ctx.step("prepare", async () => {
      await sleep(60);
      return input.id;
    });
    await ctx.tool("deliver", { id: input.id });
    return ctx.step("finish", async () => {
      await sleep(60);
      return { done: input.id };
    });
  },
});

const patient = defineAgent({
  name: "patient",
  input: z.object({ id: z.string() }),
  tools: { deliver },
  run: async (ctx, input) => {
    const run = (runs.get(input.id) ?? 0) + 1;
    runs.set(input.id, run);
    await ctx.step("wait", async () => {
      // p1's first run waits until the worker gives up on its lease; the rest go straight on.
      if (input.id !== "p1" || run > 1) return "went on";
      await new Promise<void>((resolve) => {
        ctx.signal.addEventListener("abort", () => {
          abortReasons.push(String((ctx.signal.reason as Error | undefined)?.message));
          resolve();
        });
      });
      return "waited";
    });
    reachedTool.add(`${input.id}:${run}`);
    await ctx.tool("deliver", { id: input.id });
    return { done: input.id };
  },
});

async function worker(
  id: string,
  agents: Parameters<typeof startWorker>[0]["agents"],
  leaseMs: number,
  lines: string[],
): Promise<RunningWorker> {
  const w = await startWorker({
    pool: newPool(),
    agents,
    concurrency: 4,
    leaseMs,
    pollMs: 200,
    id,
    log: (m) => lines.push(m),
  });
  workers.push(w);
  return w;
}

/** The test's own writes ride out the restart like any client's would. */
const enqueue = (agent: string, input: unknown) =>
  retryOnConnectionError(() => kit.enqueue(agent, input), { giveUpAfterMs: 30_000 });

async function until(what: string, test: () => Promise<boolean> | boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await test()) return;
    await sleep(50);
  }
  throw new Error(`timed out waiting for: ${what}`);
}

async function statusCounts(ids: readonly string[]): Promise<Map<string, number>> {
  const { rows } = await pool.query<{ status: string; n: number }>(
    "select status, count(*)::int as n from tasks where id = any($1::uuid[]) group by status",
    [ids],
  );
  return new Map(rows.map((r) => [r.status, r.n]));
}

describe("PostgreSQL restarting under running workers", () => {
  // A lease far longer than the whole test: a task that waited one out would never finish here.
  const leaseMs = 120_000;
  const lines: string[] = [];
  let a: RunningWorker;
  let b: RunningWorker;

  it.each(["fast", "immediate"] as const)(
    "pg_ctl restart -m %s: work before and after completes, each effect once, no lease waited out",
    async (mode) => {
      a ??= await worker("restart-a", [job], leaseMs, lines);
      b ??= await worker("restart-b", [job], leaseMs, lines);
      const before: string[] = [];
      for (let i = 0; i < 40; i++) before.push(await enqueue("job", { id: `${mode}-b${i}` }));
      await until("some tasks done and others in flight", async () => {
        const counts = await statusCounts(before);
        return (counts.get("succeeded") ?? 0) >= 4 && (counts.get("running") ?? 0) >= 2;
      });
      const inFlight = (await statusCounts(before)).get("running") ?? 0;

      const seen = lines.length;
      await cluster.restart(mode);

      const after: string[] = [];
      for (let i = 0; i < 20; i++) after.push(await enqueue("job", { id: `${mode}-a${i}` }));
      const all = [...before, ...after];
      await until(
        "every task succeeded",
        async () => (await statusCounts(all)).get("succeeded") === all.length,
        30_000,
      );

      // The restart did cut work in flight, and both workers listen again.
      expect(inFlight).toBeGreaterThan(0);
      const reconnects = lines.slice(seen).filter((l) => l.includes("LISTEN connection is back"));
      expect(reconnects).toHaveLength(2);
      expect(a.acting() && b.acting()).toBe(true);

      const { rows: effects } = await pool.query<{ key: string; status: string }>(
        "select key, status from effects where task_id = any($1::uuid[])",
        [all],
      );
      expect(effects).toHaveLength(all.length);
      for (const e of effects) {
        expect(e.status).toBe("succeeded");
        expect(deliveries.get(e.key), `deliveries of ${e.key}`).toBe(1);
      }
      const { rows: ledger } = await pool.query<{ kind: string; n: number }>(
        `select kind, count(*)::int as n from ledger_entries
         where task_id = any($1::uuid[]) and kind in ('task.succeeded', 'effect.succeeded', 'worker.lost')
         group by kind`,
        [all],
      );
      const byKind = new Map(ledger.map((r) => [r.kind, r.n]));
      expect(byKind.get("task.succeeded")).toBe(all.length);
      expect(byKind.get("effect.succeeded")).toBe(all.length);
      // No task had to wait for its lease to run out and be reaped.
      expect(byKind.get("worker.lost")).toBeUndefined();
    },
  );
});

describe("the database gone for longer than the lease", () => {
  it("stops acting, says so, and resumes claiming once it is back", async () => {
    const lines: string[] = [];
    const w = await worker("outage", [patient], 1_500, lines);
    const held = await enqueue("patient", { id: "p1" });
    await kit.waitFor(held, (row) => row.status === "running");
    expect(w.acting()).toBe(true);

    await cluster.stopServer();
    await until("the worker stops acting", () => !w.acting());
    expect(abortReasons.some((r) => r.includes("database unreachable"))).toBe(true);
    expect(lines.some((l) => l.includes("unreachable longer than the lease"))).toBe(true);
    // The run it abandoned never reached its effect.
    expect(reachedTool.has("p1:1")).toBe(false);

    await cluster.start();
    const later = await enqueue("patient", { id: "p2" });
    await until("the worker acts again", () => w.acting());
    expect(lines.some((l) => l.includes("claiming resumes"))).toBe(true);

    for (const id of [held, later]) {
      const row = await kit.settle(id, 20_000);
      expect(row).toMatchObject({ status: "succeeded" });
      const [effect] = await kit.effects(id);
      expect(effect?.status).toBe("succeeded");
      expect(deliveries.get(effect?.key ?? "")).toBe(1);
    }
    expect(reachedTool.has("p1:1")).toBe(false);
    expect(runs.get("p1")).toBeGreaterThan(1);
  });
});
