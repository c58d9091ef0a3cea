// `npm run bench -- --section scale-out`: throughput of 1, 2 and 4 worker processes on one
// database holding the same total in flight (16 and 64 by default: 4 processes of 4, 2 of 32...),
// each a child process (scale-out-worker.ts) running the comparison's agent (one intent-keyed
// INSERT per task, full bookkeeping) over tasks inserted beforehand. With `--systems
// agent-ledger,graphile-worker` the peer runs the same way beside it (scale-out-graphile.ts: the
// bare INSERT job at its compare settings), so what more processes cost on this box is measured
// against a queue that keeps no history. Levels are interleaved per run; the median of the runs
// is reported, as a ratio to the same system's one process at the same total. Every measurement
// is checked by the database's own counts before it counts, and each run also reports what it
// cost: worker CPU and committed transactions per task.
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type pg from "pg";
import { z } from "zod";
import { createPool } from "../../db/client";
import {
  createTestDatabaseFrom,
  dropTestDatabase,
  type TestCluster,
  type TestDatabaseUrls,
} from "../../db/testing/cluster";
import { readDbStats } from "./compare/db-stats";
import { addGraphileJobs, graphilePool, quietGraphileLogger } from "./compare/graphile";
import { insertOurTasks, SINK_DDL } from "./compare/systems";

export const SCALE_OUT_SYSTEMS = ["agent-ledger", "graphile-worker"] as const;
export type ScaleOutSystem = (typeof SCALE_OUT_SYSTEMS)[number];

export type ScaleOutOptions = {
  /** Ours only unless a peer is named. */
  systems?: readonly ScaleOutSystem[];
  tasks: number;
  /** Attempts in flight in all, divided among the processes. */
  totals: readonly number[];
  processes: readonly number[];
  runs: number;
  log?: (line: string) => void;
};

export type ScaleOutRun = {
  system: ScaleOutSystem;
  /** Attempts in flight in all. */
  total: number;
  processes: number;
  concurrencyEach: number;
  run: number;
  tasks: number;
  seconds: number;
  jobsPerSec: number;
  /** All worker processes' user + system CPU over the run, per task. */
  cpuMsPerJob: number;
  /**
   * Transactions committed in the run's database per task (pg_stat_database), the bench's own
   * reads taken out, the workers' start included: how well each process's statements batch.
   */
  xactPerJob: number;
  /**
   * By the database: tasks succeeded, their attempts, task.succeeded entries, sink rows. For the
   * peer: jobs completed (gone from its table), jobs its processes ran, no entries (null).
   */
  succeeded: number;
  attempts: number;
  succeededEntries: number | null;
  sinkRows: number;
  /** Attempts each process ran: how the work spread. */
  attemptsByProcess: number[];
};

export type ScaleOutSummary = {
  system: ScaleOutSystem;
  total: number;
  processes: number;
  concurrencyEach: number;
  medianJobsPerSec: number;
  /** Against one process with the same total in flight. */
  ratio: number;
  medianCpuMsPerJob: number;
  medianXactPerJob: number;
};

export type ScaleOut = {
  tasks: number;
  runs: ScaleOutRun[];
  summary: ScaleOutSummary[];
};

const here = path.dirname(fileURLToPath(import.meta.url));

type RunCounts = { succeeded: number; attempts: number; entries: number | null; sink: number };

/** A read of the run's database by the bench, counted (the commits it adds are taken out). */
type Read = <R extends pg.QueryResultRow>(text: string) => Promise<R[]>;

/** What differs between ours and the peer: one record each, the run itself is shared. */
type SystemSetup = {
  /** Its child process's script. */
  child: string;
  /** A word for the run's database name. */
  short: string;
  /** Queues `tasks` tasks (jobs) in the run's database. */
  queue: (db: TestDatabaseUrls, tasks: number) => Promise<void>;
  childArgs: (db: TestDatabaseUrls, concurrency: number) => string[];
  /** Tasks done so far, by the database. */
  done: (read: Read, tasks: number) => Promise<number>;
  /** What the run left, by the database; `ran` is what its processes say they ran. */
  counts: (read: Read, tasks: number, ran: number) => Promise<RunCounts>;
};

const count = async (read: Read, text: string) => (await read<{ n: number }>(text))[0]?.n ?? 0;

const SETUP: Record<ScaleOutSystem, SystemSetup> = {
  "agent-ledger": {
    child: path.join(here, "scale-out-worker.ts"),
    short: "ours",
    queue: async (db, tasks) => {
      const app = createPool(db.appUrl, { max: 2 });
      try {
        await insertOurTasks(app, "bench", tasks);
      } finally {
        await app.end();
      }
    },
    childArgs: (db, concurrency) => [db.appUrl, db.superUrl, String(concurrency)],
    done: (read) =>
      count(
        read,
        "select count(*)::int as n from tasks where agent = 'bench' and status = 'succeeded'",
      ),
    counts: async (read) => {
      const rows = await read<RunCounts>(
        `select (select count(*)::int from tasks where status = 'succeeded') as succeeded,
                (select coalesce(sum(attempts), 0)::int from tasks) as attempts,
                (select count(*)::int from ledger_entries where kind = 'task.succeeded') as entries,
                (select count(distinct n)::int from bench_sink) as sink`,
      );
      if (!rows[0]) throw new Error("no counts");
      return rows[0];
    },
  },
  "graphile-worker": {
    child: path.join(here, "scale-out-graphile.ts"),
    short: "graphile",
    queue: async (db, tasks) => {
      const { makeWorkerUtils } = await import("graphile-worker");
      const pool = graphilePool(db.superUrl, 2);
      const utils = await makeWorkerUtils({ pgPool: pool, logger: quietGraphileLogger });
      try {
        await utils.migrate();
        await addGraphileJobs(utils, tasks);
      } finally {
        await utils.release();
        await pool.end();
      }
    },
    childArgs: (db, concurrency) => [db.superUrl, String(concurrency)],
    // A completed job's row is deleted.
    done: async (read, tasks) =>
      tasks - (await count(read, "select count(*)::int as n from graphile_worker._private_jobs")),
    // Jobs completed, jobs its processes ran, no entries.
    counts: async (read, tasks, ran) => ({
      succeeded: await SETUP["graphile-worker"].done(read, tasks),
      attempts: ran,
      entries: null,
      sink: await count(read, "select count(distinct n)::int as n from bench_sink"),
    }),
  },
};

/** A run that finishes nothing for this long is broken, not slow. */
const STALL_MS = 60_000;

const reportSchema = z.object({ attempts: z.number(), cpuMs: z.number() });

type Child = { proc: ChildProcess; lines: AsyncIterator<string> };

function startChild(script: string, args: string[]): Child {
  const proc = spawn(process.execPath, ["--import", "tsx", script, ...args], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  if (!proc.stdout) throw new Error("scale-out worker has no stdout");
  return { proc, lines: createInterface({ input: proc.stdout })[Symbol.asyncIterator]() };
}

async function nextLine(child: Child): Promise<string> {
  const next = await child.lines.next();
  if (next.done) throw new Error(`scale-out worker exited (code ${child.proc.exitCode})`);
  return next.value;
}

const exited = (proc: ChildProcess) =>
  proc.exitCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => proc.once("exit", () => resolve()));

async function measure(
  cluster: TestCluster,
  spec: { system: ScaleOutSystem; total: number; processes: number; tasks: number; run: number },
): Promise<ScaleOutRun> {
  const { system } = spec;
  const setup = SETUP[system];
  const concurrencyEach = Math.max(1, Math.floor(spec.total / spec.processes));
  const db = await createTestDatabaseFrom(cluster, `scale_${setup.short}_${spec.processes}`);
  const admin = createPool(db.superUrl, { max: 2 });
  const children: Child[] = [];
  try {
    await admin.query(SINK_DDL);
    await admin.query("grant select, insert on bench_sink to agent_ledger_app");
    await setup.queue(db, spec.tasks);
    for (let i = 0; i < spec.processes; i++) {
      children.push(startChild(setup.child, setup.childArgs(db, concurrencyEach)));
    }
    for (const child of children) {
      const line = await nextLine(child);
      if (line !== "ready") throw new Error(`scale-out worker said ${line}`);
    }
    // Counted before the start: what commits from here on is the workers' (and the reads below,
    // which are counted and taken out). A backend reports its counts when it ends, at the latest.
    const before = (await readDbStats(cluster.superUrl, db.name, false)).commits;
    let reads = 0;
    const read: Read = async (text) => {
      reads++;
      return (await admin.query(text)).rows;
    };
    const start = performance.now();
    for (const child of children) child.proc.stdin?.write("go\n");
    let done = 0;
    let progressAt = start;
    while (done < spec.tasks) {
      await new Promise((r) => setTimeout(r, 20));
      const now = await setup.done(read, spec.tasks);
      if (now > done) progressAt = performance.now();
      else if (performance.now() - progressAt > STALL_MS) {
        throw new Error(`stalled at ${now}/${spec.tasks} tasks`);
      }
      done = now;
    }
    const seconds = (performance.now() - start) / 1000;
    for (const child of children) child.proc.stdin?.write("stop\n");
    const reports = [];
    for (const child of children)
      reports.push(reportSchema.parse(JSON.parse(await nextLine(child))));
    await Promise.all(children.map((c) => exited(c.proc)));
    const ran = reports.reduce((sum, r) => sum + r.attempts, 0);
    const counts = await setup.counts(read, spec.tasks, ran);
    await admin.end();
    const xacts = (await readDbStats(cluster.superUrl, db.name, false)).commits - before - reads;
    const cpuMs = reports.reduce((sum, r) => sum + r.cpuMs, 0);
    return {
      system,
      total: spec.total,
      processes: spec.processes,
      concurrencyEach,
      run: spec.run,
      tasks: spec.tasks,
      seconds,
      jobsPerSec: spec.tasks / seconds,
      cpuMsPerJob: cpuMs / spec.tasks,
      xactPerJob: xacts / spec.tasks,
      succeeded: counts.succeeded,
      attempts: counts.attempts,
      succeededEntries: counts.entries,
      sinkRows: counts.sink,
      attemptsByProcess: reports.map((r) => r.attempts),
    };
  } finally {
    for (const child of children) if (child.proc.exitCode === null) child.proc.kill();
    await Promise.all(children.map((c) => exited(c.proc)));
    if (!admin.ended) await admin.end();
    await dropTestDatabase(cluster, db.name).catch(() => undefined);
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

export async function runScaleOut(
  cluster: TestCluster,
  options: ScaleOutOptions,
): Promise<ScaleOut> {
  const systems = options.systems ?? ["agent-ledger"];
  const runs: ScaleOutRun[] = [];
  for (let run = 1; run <= options.runs; run++) {
    for (const total of options.totals) {
      for (const processes of options.processes) {
        for (const system of systems) {
          const r = await measure(cluster, {
            system,
            total,
            processes,
            tasks: options.tasks,
            run,
          });
          options.log?.(
            `scale-out run ${run}, ${system}, ${total} in flight, ${processes}×${r.concurrencyEach}: ${r.jobsPerSec.toFixed(0)} jobs/s, ${r.xactPerJob.toFixed(2)} transactions per task (${r.attemptsByProcess.join("+")} attempts)`,
          );
          runs.push(r);
        }
      }
    }
  }
  const summary: ScaleOutSummary[] = [];
  for (const system of systems) {
    for (const total of options.totals) {
      const of = runs.filter((r) => r.system === system && r.total === total);
      const base = median(of.filter((r) => r.processes === 1).map((r) => r.jobsPerSec));
      for (const processes of options.processes) {
        const mine = of.filter((r) => r.processes === processes);
        const jobs = median(mine.map((r) => r.jobsPerSec));
        summary.push({
          system,
          total,
          processes,
          concurrencyEach: mine[0]?.concurrencyEach ?? total,
          medianJobsPerSec: Math.round(jobs),
          ratio: base > 0 ? Number((jobs / base).toFixed(2)) : 0,
          medianCpuMsPerJob: Number(median(mine.map((r) => r.cpuMsPerJob)).toFixed(2)),
          medianXactPerJob: Number(median(mine.map((r) => r.xactPerJob)).toFixed(2)),
        });
      }
    }
  }
  return { tasks: options.tasks, runs, summary };
}

/** Runs whose counts are not exactly one success per task; empty when every run is sound. */
export function unsoundRuns(result: ScaleOut): ScaleOutRun[] {
  return result.runs.filter(
    (r) =>
      r.succeeded !== r.tasks ||
      r.attempts !== r.tasks ||
      (r.system === "agent-ledger" && r.succeededEntries !== r.tasks) ||
      r.sinkRows !== r.tasks,
  );
}

export function renderScaleOut(result: ScaleOut, command: string): string {
  const runs = new Set(result.runs.map((r) => r.run)).size;
  const rows = result.summary.map(
    (s) =>
      `| ${s.system} | ${s.total} | ${s.processes} | ${s.concurrencyEach} | ${s.medianJobsPerSec.toLocaleString("en-US")} | ${s.ratio.toFixed(2)}× | ${s.medianCpuMsPerJob} ms | ${s.medianXactPerJob} |`,
  );
  return [
    `${result.tasks.toLocaleString("en-US")} tasks per run, one INSERT each (ours with full bookkeeping), median of ${runs} run${runs === 1 ? "" : "s"}; \`${command}\``,
    "",
    "| system | in flight | processes | concurrency each | jobs/s | × 1 process | worker CPU per job | transactions per job |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows,
  ].join("\n");
}

/** The bench section: defaults for a full run and for `--quick` (about 30 s), JSON and table out. */
export async function scaleOutSection(
  cluster: TestCluster,
  flags: {
    quick: boolean;
    jobs?: string;
    runs?: string;
    inFlight?: string;
    out?: string;
    systems?: string;
  },
): Promise<void> {
  const systems = flags.systems?.split(",").map((s) => s.trim());
  const unknown = systems?.filter((s) => !(SCALE_OUT_SYSTEMS as readonly string[]).includes(s));
  if (unknown?.length) {
    throw new Error(
      `--systems for scale-out: unknown ${unknown.join(", ")} (${SCALE_OUT_SYSTEMS.join(", ")})`,
    );
  }
  const result = await runScaleOut(cluster, {
    systems: systems as ScaleOutSystem[] | undefined,
    tasks: Number(flags.jobs ?? (flags.quick ? 200 : 4_000)),
    totals: (flags.inFlight ?? "16,64").split(",").map(Number),
    processes: [1, 2, 4],
    runs: Number(flags.runs ?? (flags.quick ? 1 : 3)),
    log: (line) => console.error(line),
  });
  const unsound = unsoundRuns(result);
  if (unsound.length > 0) {
    throw new Error(`runs without exactly one success per task: ${JSON.stringify(unsound)}`);
  }
  const command = `npm run bench -- ${process.argv.slice(2).join(" ")}`.trim().replace(/ --$/, "");
  const out = flags.out ?? `benchmarks/scale-out${flags.quick ? "-quick" : ""}.json`;
  writeFileSync(
    out,
    `${JSON.stringify({ command, at: new Date().toISOString(), ...result }, null, 2)}\n`,
  );
  console.log(`${renderScaleOut(result, command)}\n\n(JSON: ${out})\n`);
}
