// The comparison's other questions: how fast tasks go in (bulk enqueue against graphile-worker's
// addJobs and pg-boss's insert), how long an enqueued task waits for its first step when the
// worker is idle and woken by LISTEN/NOTIFY, what a repeated enqueue key costs, and how much
// memory a worker process holds at concurrency 1, 16 and 64 (a child process each, so the
// figure is the worker's own RSS, not this harness's).
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { makeWorkerUtils, run as runGraphile } from "graphile-worker";
import { PgBoss } from "pg-boss";
import { z } from "zod";
import { createPool } from "../../../db/client";
import {
  createTestDatabaseFrom,
  dropTestDatabase,
  type TestCluster,
  type TestDatabaseUrls,
} from "../../../db/testing/cluster";
import { defineAgent } from "../../../lib/sdk/define";
import { enqueue } from "../../../lib/sdk/enqueue";
import { enqueueMany } from "../../../lib/sdk/enqueue-many";
import { startWorker } from "../../../worker/runtime/worker";
import { graphilePool, quietGraphileLogger } from "./graphile";
import { insertOurTasks } from "./systems";

export type Percentiles = { samples: number; p50Ms: number; p99Ms: number; maxMs: number };

export function percentiles(values: number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
  return {
    samples: sorted.length,
    p50Ms: round(at(0.5)),
    p99Ms: round(at(0.99)),
    maxMs: round(sorted[sorted.length - 1] ?? 0),
  };
}

const round = (n: number, places = 2) => Number(n.toFixed(places));

async function withDatabase<T>(
  cluster: TestCluster,
  label: string,
  fn: (db: TestDatabaseUrls) => Promise<T>,
): Promise<T> {
  const db = await createTestDatabaseFrom(cluster, label);
  try {
    return await fn(db);
  } finally {
    await dropTestDatabase(cluster, db.name).catch(() => undefined);
  }
}

export type BulkEnqueue = {
  tasks: number;
  graphileAddJobs: number;
  pgBossInsert: number;
  ours: number;
  /** Which of our enqueue paths was measured. */
  oursPath: string;
  ratioToGraphile: number;
};

/** Tasks per second into the queue. */
export async function benchBulkEnqueue(
  cluster: TestCluster,
  tasks: number,
  concurrency: number,
): Promise<BulkEnqueue> {
  const items = Array.from({ length: tasks }, (_, n) => ({ n }));
  const graphile = await withDatabase(cluster, "bulk_graphile", async (db) => {
    const pool = graphilePool(db.superUrl, 4);
    const utils = await makeWorkerUtils({ pgPool: pool, logger: quietGraphileLogger });
    try {
      await utils.migrate();
      const start = performance.now();
      await utils.addJobs(items.map((payload) => ({ identifier: "bench", payload })));
      return tasks / ((performance.now() - start) / 1000);
    } finally {
      await utils.release();
      await pool.end();
    }
  });
  const boss = await withDatabase(cluster, "bulk_pgboss", async (db) => {
    const b = new PgBoss({ connectionString: db.superUrl, schedule: false, supervise: false });
    b.on("error", () => {});
    await b.start();
    try {
      await b.createQueue("bench");
      const start = performance.now();
      await b.insert(
        "bench",
        items.map((data) => ({ data })),
      );
      return tasks / ((performance.now() - start) / 1000);
    } finally {
      await b.stop({ graceful: false });
    }
  });
  // The library's bulk path, one call, as addJobs and insert are; the single enqueue from
  // `concurrency` callers is what a user had before it.
  const oursPath = "enqueueMany (lib/sdk), one call";
  const ours = await withDatabase(cluster, "bulk_ours", async (db) => {
    const pool = createPool(db.appUrl, { max: concurrency + 2 });
    try {
      const start = performance.now();
      await enqueueMany(
        pool,
        items.map((input) => ({ agent: "bench", input })),
      );
      const seconds = (performance.now() - start) / 1000;
      const { rows } = await pool.query<{ n: number }>("select count(*)::int as n from tasks");
      if (rows[0]?.n !== tasks) throw new Error(`bulk enqueue stored ${rows[0]?.n} of ${tasks}`);
      return tasks / seconds;
    } finally {
      await pool.end();
    }
  });
  return {
    tasks,
    graphileAddJobs: Math.round(graphile),
    pgBossInsert: Math.round(boss),
    ours: Math.round(ours),
    oursPath,
    ratioToGraphile: round(ours / graphile, 3),
  };
}

export type Latency = { ours: Percentiles; graphile: Percentiles };

/**
 * Enqueue → first step: one task at a time into an idle worker (polling every 10 s, so what
 * wakes it is the NOTIFY), from just before the enqueue call until the agent's first step runs.
 */
export async function benchLatency(cluster: TestCluster, samples: number): Promise<Latency> {
  const ours = await withDatabase(cluster, "latency_ours", async (db) => {
    const pool = createPool(db.appUrl, { max: 8 });
    let arrived: ((at: number) => void) | undefined;
    const agent = defineAgent({
      name: "latency",
      input: z.object({ n: z.number() }),
      tools: {},
      run: async (ctx, input) =>
        ctx.step("first", async () => {
          arrived?.(performance.now());
          return input.n;
        }),
    });
    const worker = await startWorker({
      pool,
      agents: [agent],
      concurrency: 4,
      pollMs: 10_000,
      log: () => {},
    });
    try {
      const out: number[] = [];
      for (let n = 0; n < samples + 5; n++) {
        const seen = new Promise<number>((resolve) => {
          arrived = resolve;
        });
        const start = performance.now();
        await enqueue(pool, { agent: "latency", input: { n } });
        const at = await seen;
        if (n >= 5) out.push(at - start); // the first few warm the connections and plans
        await new Promise((r) => setTimeout(r, 5));
      }
      return percentiles(out);
    } finally {
      await worker.stop(2_000);
      await pool.end();
    }
  });
  const graphile = await withDatabase(cluster, "latency_graphile", async (db) => {
    let arrived: ((at: number) => void) | undefined;
    const pool = graphilePool(db.superUrl, 8);
    const utils = await makeWorkerUtils({ pgPool: pool, logger: quietGraphileLogger });
    await utils.migrate();
    const runner = await runGraphile({
      pgPool: pool,
      concurrency: 4,
      noHandleSignals: true,
      pollInterval: 10_000,
      logger: quietGraphileLogger,
      taskList: {
        latency: async () => {
          arrived?.(performance.now());
        },
      },
    });
    try {
      const out: number[] = [];
      for (let n = 0; n < samples + 5; n++) {
        const seen = new Promise<number>((resolve) => {
          arrived = resolve;
        });
        const start = performance.now();
        await utils.addJob("latency", { n });
        const at = await seen;
        if (n >= 5) out.push(at - start);
        await new Promise((r) => setTimeout(r, 5));
      }
      return percentiles(out);
    } finally {
      await runner.stop();
      await utils.release();
      await pool.end();
    }
  });
  return { ours, graphile };
}

/** A repeated enqueue key: the first call creates the task, every later one must return it. */
export async function benchDedupe(cluster: TestCluster, samples: number): Promise<Percentiles> {
  return withDatabase(cluster, "dedupe", async (db) => {
    const pool = createPool(db.appUrl, { max: 4 });
    try {
      const first = await enqueue(pool, { agent: "bench", input: { n: 0 }, key: "repeated" });
      const out: number[] = [];
      for (let i = 0; i < samples + 20; i++) {
        const start = performance.now();
        const again = await enqueue(pool, { agent: "bench", input: { n: 0 }, key: "repeated" });
        const ms = performance.now() - start;
        if (again.created || again.taskId !== first.taskId)
          throw new Error("dedupe made a second task");
        if (i >= 20) out.push(ms);
      }
      const { rows } = await pool.query<{ n: number }>("select count(*)::int as n from tasks");
      if (rows[0]?.n !== 1) throw new Error(`dedupe left ${rows[0]?.n} tasks`);
      return percentiles(out);
    } finally {
      await pool.end();
    }
  });
}

export type WorkerRss = {
  concurrency: number;
  tasks: number;
  /** Node, tsx and the runtime's modules loaded, before the worker starts: the floor. */
  loadedRssMb: number;
  peakRssMb: number;
  settledRssMb: number;
};

const child = path.join(path.dirname(fileURLToPath(import.meta.url)), "rss-worker.ts");

/** Peak RSS of a worker process running `tasks` no-op tasks at each concurrency. */
export async function benchWorkerRss(
  cluster: TestCluster,
  levels: readonly number[],
  tasks: number,
): Promise<WorkerRss[]> {
  const out: WorkerRss[] = [];
  for (const concurrency of levels) {
    out.push(
      await withDatabase(cluster, `rss_${concurrency}`, async (db) => {
        const pool = createPool(db.appUrl, { max: 2 });
        try {
          await insertOurTasks(pool, "bench", tasks);
        } finally {
          await pool.end();
        }
        const report = await new Promise<string>((resolve, reject) => {
          const proc = spawn(
            process.execPath,
            ["--import", "tsx", child, db.appUrl, String(concurrency), String(tasks)],
            { stdio: ["ignore", "pipe", "inherit"] },
          );
          let text = "";
          proc.stdout.on("data", (d) => {
            text += d;
          });
          proc.on("error", reject);
          proc.on("exit", (code) =>
            code === 0 ? resolve(text) : reject(new Error(`rss worker exited ${code}`)),
          );
        });
        const parsed = z
          .object({
            loadedRssMb: z.number(),
            peakRssMb: z.number(),
            settledRssMb: z.number(),
            done: z.number(),
          })
          .parse(JSON.parse(report.trim().split("\n").pop() ?? "{}"));
        if (parsed.done < tasks) throw new Error(`rss worker finished ${parsed.done} of ${tasks}`);
        return {
          concurrency,
          tasks,
          loadedRssMb: parsed.loadedRssMb,
          peakRssMb: parsed.peakRssMb,
          settledRssMb: parsed.settledRssMb,
        };
      }),
    );
  }
  return out;
}
