// The systems the comparison runs, each doing the same N jobs at the same concurrency on its own
// fresh database copied from the migrated template (so no run reads another's leftovers):
// graphile-worker and pg-boss at their documented best throughput settings doing the bare job,
// DBOS with each job a workflow whose one step is the handler (./dbos.ts), ours doing the same
// work as one intent-keyed effect through the real runtime (claim, effect claim, result +
// effect.succeeded carrying the attempt's start and the effect's claim, completion +
// task.succeeded, all hash-chained),
// and a pgbench-style ceiling: one-INSERT transactions from the same number of clients, what this
// server commits per second at all. The clock runs from the worker's start until the database
// says every job is done (a batched completion counts once it commits).
import { run as runGraphile } from "graphile-worker";
import type pg from "pg";
import { PgBoss } from "pg-boss";
import { createPool, withTransaction } from "../../../db/client";
import {
  createTestDatabaseFrom,
  dropTestDatabase,
  type TestCluster,
  type TestDatabaseUrls,
} from "../../../db/testing/cluster";
import { insertTask } from "../../../lib/server/commands/enqueue-task";
import { startWorker } from "../../../worker/runtime/worker";
import { benchAgent, type HandlerName, sinkInsert } from "./agent";
import { type DbStats, type PerJob, perJob, readDbStats } from "./db-stats";
import { DBOS_POLL_MS, DBOS_POOL, prepareDbos } from "./dbos";
import {
  addGraphileJobs,
  GRAPHILE_SETTINGS,
  graphilePool,
  graphileRunOptions,
  quietGraphileLogger,
} from "./graphile";

export type SystemName = "graphile-worker" | "pg-boss" | "dbos" | "agent-ledger" | "ceiling";
export const SYSTEMS: readonly SystemName[] = [
  "graphile-worker",
  "pg-boss",
  "dbos",
  "agent-ledger",
  "ceiling",
];
export type { HandlerName } from "./agent";

export type RunResult = {
  system: SystemName;
  handler: HandlerName;
  jobs: number;
  /** Jobs the database shows done after the run (and, for `insert`, rows in the sink). */
  completed: number;
  sinkRows: number | null;
  /** Of those rows, the ones whose n is a job's (0 to jobs − 1); n is the sink's key. */
  sinkKeys: number | null;
  seconds: number;
  jobsPerSec: number;
  /** This process's user + system CPU over the run, per job: the worker's cost, client side. */
  cpuMsPerJob: number;
  /** What the system wrote per job, enqueue included (the polling for "done" too, a little). */
  writes: PerJob;
};

export type RunSpec = { jobs: number; concurrency: number; handler: HandlerName };

/** Documented best-throughput settings, recorded in the JSON beside the figures. */
export const SETTINGS = {
  "graphile-worker": GRAPHILE_SETTINGS,
  "pg-boss":
    "batchSize 100, localConcurrency = concurrency, burstWhenBatchFull, pollingIntervalSeconds 0.5, no schedule/supervise",
  dbos: `@dbos-inc/dbos-sdk 5.3.0: one queue, workerConcurrency = concurrency, minPollingIntervalMs ${DBOS_POLL_MS} (default 1000), systemDatabasePoolSize ${DBOS_POOL}, system database = the run's database; workflow id bench-<n>, one DBOS.runStep doing the handler (nothing for noop); enqueued by DBOSClient.enqueueInTransaction, 500 per commit; logger silenced but for errors, systemDatabaseIdleTransactionTimeoutMs 0 (the server's)`,
  "agent-ledger":
    "worker/runtime startWorker, one agent whose run is one intent-keyed tool call, pollMs 50",
  ceiling: "one INSERT per autocommit transaction from `concurrency` clients",
} as const;

export const SINK_DDL =
  "create table bench_sink (n integer primary key, at timestamptz not null default now())";

async function until(check: () => Promise<boolean>, pauseMs = 10): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, pauseMs));
}

export type Prepared = {
  /** Starts the worker; resolves once every job is done; returns the done count. */
  go: () => Promise<void>;
  completed: () => Promise<number>;
  close: () => Promise<void>;
};

async function prepareGraphile(
  db: TestDatabaseUrls,
  spec: RunSpec,
  sink: pg.Pool,
): Promise<Prepared> {
  const { makeWorkerUtils } = await import("graphile-worker");
  const pool = graphilePool(db.superUrl, spec.concurrency + 2);
  const utils = await makeWorkerUtils({ pgPool: pool, logger: quietGraphileLogger });
  await utils.migrate();
  await addGraphileJobs(utils, spec.jobs);
  let handled = 0;
  let runner: Awaited<ReturnType<typeof runGraphile>> | undefined;
  const remaining = async () => {
    const { rows } = await sink.query<{ n: number }>(
      "select count(*)::int as n from graphile_worker._private_jobs",
    );
    return rows[0]?.n ?? 0;
  };
  return {
    go: async () => {
      runner = await runGraphile(
        graphileRunOptions(pool, spec.concurrency, async (n) => {
          if (spec.handler === "insert") await sinkInsert(sink, n);
          handled++;
        }),
      );
      await until(async () => handled >= spec.jobs);
      // Completion is batched: done is when the rows are gone.
      await until(async () => (await remaining()) === 0);
    },
    completed: async () => spec.jobs - (await remaining()),
    close: async () => {
      await runner?.stop();
      await utils.release();
      await pool.end();
    },
  };
}

async function preparePgBoss(
  db: TestDatabaseUrls,
  spec: RunSpec,
  sink: pg.Pool,
): Promise<Prepared> {
  const boss = new PgBoss({
    connectionString: db.superUrl,
    max: spec.concurrency + 2,
    schedule: false,
    supervise: false,
  });
  let closing = false;
  // Dropping the database ends whatever connection pg-boss still holds after stop(): not news.
  boss.on("error", (err) => {
    if (!closing) console.error("pg-boss:", err);
  });
  await boss.start();
  await boss.createQueue("bench");
  for (let i = 0; i < spec.jobs; i += 5_000) {
    const jobs = [];
    for (let n = i; n < Math.min(spec.jobs, i + 5_000); n++) jobs.push({ data: { n } });
    await boss.insert("bench", jobs);
  }
  let handled = 0;
  const done = async () => {
    const { rows } = await sink.query<{ n: number }>(
      "select count(*)::int as n from pgboss.job where name = 'bench' and state = 'completed'",
    );
    return rows[0]?.n ?? 0;
  };
  return {
    go: async () => {
      await boss.work<{ n: number }>(
        "bench",
        {
          batchSize: 100,
          localConcurrency: spec.concurrency,
          burstWhenBatchFull: true,
          pollingIntervalSeconds: 0.5,
        },
        async (jobs) => {
          for (const job of jobs) {
            if (spec.handler === "insert") await sinkInsert(sink, job.data.n);
            handled++;
          }
        },
      );
      await until(async () => handled >= spec.jobs);
      await until(async () => (await done()) >= spec.jobs);
    },
    completed: done,
    close: async () => {
      closing = true;
      await boss.stop({ graceful: true, timeout: 5_000 });
    },
  };
}

/** Setup only (not timed): the tasks as the library's write would store them, 500 per commit. */
export async function insertOurTasks(pool: pg.Pool, agent: string, jobs: number): Promise<void> {
  for (let i = 0; i < jobs; i += 500) {
    await withTransaction(pool, async (c) => {
      for (let n = i; n < Math.min(jobs, i + 500); n++) {
        await insertTask(c, { agent, input: { n }, actor: "bench" });
      }
    });
  }
}

async function prepareOurs(db: TestDatabaseUrls, spec: RunSpec, sink: pg.Pool): Promise<Prepared> {
  const pool = createPool(db.appUrl, { max: spec.concurrency + 4 });
  await insertOurTasks(pool, "bench", spec.jobs);
  let finished = 0;
  let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
  const done = async () => {
    const { rows } = await pool.query<{ n: number }>(
      "select count(*)::int as n from tasks where agent = 'bench' and status = 'succeeded'",
    );
    return rows[0]?.n ?? 0;
  };
  return {
    go: async () => {
      worker = await startWorker({
        pool,
        agents: [benchAgent(spec.handler, sink)],
        concurrency: spec.concurrency,
        pollMs: 50,
        log: () => {},
        onAttempt: () => {
          finished++;
        },
      });
      await until(async () => finished >= spec.jobs);
      await until(async () => (await done()) >= spec.jobs);
    },
    completed: done,
    close: async () => {
      await worker?.stop(2_000);
      await pool.end();
    },
  };
}

async function prepareCeiling(spec: RunSpec, sink: pg.Pool): Promise<Prepared> {
  let next = 0;
  let done = 0;
  return {
    go: async () => {
      await Promise.all(
        Array.from({ length: spec.concurrency }, async () => {
          while (next < spec.jobs) {
            const n = next++;
            // One INSERT per transaction whatever the handler: what this server commits per
            // second from this many clients, the bound any system writing per job sits under.
            await sinkInsert(sink, n);
            done++;
          }
        }),
      );
    },
    completed: async () => done,
    close: async () => {},
  };
}

/** One measurement of one system on its own fresh database. */
export async function runSystem(
  cluster: TestCluster,
  system: SystemName,
  spec: RunSpec,
  /** Reads more of what the run wrote, once its connections ended and before its database goes. */
  inspect?: (db: TestDatabaseUrls, before: DbStats, after: DbStats) => Promise<void>,
): Promise<RunResult> {
  const db = await createTestDatabaseFrom(cluster, `cmp_${system}`);
  const before = await readDbStats(cluster.superUrl, db.name);
  const sink = createPool(db.superUrl, { max: spec.concurrency + 2 });
  let prepared: Prepared | undefined;
  let closed = false;
  try {
    await sink.query(SINK_DDL);
    await sink.query("grant select, insert on bench_sink to agent_ledger_app");
    prepared =
      system === "graphile-worker"
        ? await prepareGraphile(db, spec, sink)
        : system === "pg-boss"
          ? await preparePgBoss(db, spec, sink)
          : system === "dbos"
            ? await prepareDbos(db, spec, sink)
            : system === "agent-ledger"
              ? await prepareOurs(db, spec, sink)
              : await prepareCeiling(spec, sink);
    const cpu = process.cpuUsage();
    const start = performance.now();
    await prepared.go();
    const seconds = (performance.now() - start) / 1000;
    const used = process.cpuUsage(cpu);
    const completed = await prepared.completed();
    const sinkCount =
      spec.handler === "insert" || system === "ceiling"
        ? (
            await sink.query<{ rows: number; keys: number }>(
              "select count(*)::int as rows, (count(*) filter (where n >= 0 and n < $1))::int as keys from bench_sink",
              [spec.jobs],
            )
          ).rows[0]
        : undefined;
    await prepared.close();
    await sink.end();
    closed = true;
    const after = await readDbStats(cluster.superUrl, db.name);
    await inspect?.(db, before, after);
    return {
      system,
      handler: spec.handler,
      jobs: spec.jobs,
      completed,
      sinkRows: sinkCount?.rows ?? null,
      sinkKeys: sinkCount?.keys ?? null,
      seconds,
      jobsPerSec: spec.jobs / seconds,
      cpuMsPerJob: (used.user + used.system) / 1000 / spec.jobs,
      writes: perJob(before, after, spec.jobs),
    };
  } finally {
    if (!closed) {
      await prepared?.close().catch((err) => console.error(`${system} close:`, err));
      await sink.end();
    }
    await dropTestDatabase(cluster, db.name).catch(() => undefined);
  }
}
