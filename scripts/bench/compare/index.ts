// The comparison `npm run bench` reports: every system on the same throwaway PostgreSQL, runs
// interleaved (each run goes through every system in a rotated order, so drift in the shared
// machine's load falls on all of them alike), each figure a ratio to graphile-worker and to DBOS
// in the same run, the median over runs, beside what each system wrote per job. Figures are
// reported, never asserted: the test checks the counts.
import os from "node:os";
import pg from "pg";
import type { TestCluster } from "../../../db/testing/cluster";
import type { PerJob } from "./db-stats";
import {
  type BulkEnqueue,
  benchBulkEnqueue,
  benchDedupe,
  benchLatency,
  benchWorkerRss,
  type Latency,
  type Percentiles,
  type WorkerRss,
} from "./extras";
import {
  type HandlerName,
  type RunResult,
  runSystem,
  SETTINGS,
  SYSTEMS,
  type SystemName,
} from "./systems";

export type ComparisonOptions = {
  /** The systems to run (default all of SYSTEMS). */
  systems?: readonly SystemName[];
  jobs: number;
  concurrency: number;
  runs: number;
  /** Bulk enqueue, latency, dedupe and RSS; null skips them. */
  extras: null | {
    bulkTasks: number;
    latencySamples: number;
    dedupeSamples: number;
    rssTasks: number;
    rssLevels: readonly number[];
  };
  log?: (line: string) => void;
};

export type Summary = {
  handler: HandlerName;
  system: SystemName;
  medianJobsPerSec: number;
  /** To graphile-worker, and to DBOS, each in the same run (NaN when that system did not run). */
  medianRatio: number;
  medianRatioToDbos: number;
  medianCpuMsPerJob: number;
  /** What it wrote per job, each figure the median over runs. */
  medianWrites: PerJob;
  /** The fewest jobs any run of this system finished, out of `jobs`. */
  minCompleted: number;
  jobs: number;
};

export type Comparison = {
  date: string;
  machine: {
    cpus: number;
    cpuModel: string;
    memoryGb: number;
    loadAverageStart: number[];
    loadAverageEnd: number[];
    node: string;
    postgres: string;
  };
  options: Omit<ComparisonOptions, "log">;
  settings: typeof SETTINGS;
  runs: (RunResult & { run: number; ratio: number; ratioToDbos: number })[];
  summary: Summary[];
  bulkEnqueue: BulkEnqueue | null;
  latency: Latency | null;
  dedupe: Percentiles | null;
  workerRss: WorkerRss[] | null;
};

const HANDLERS: readonly HandlerName[] = ["insert", "noop"];

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

const loadavg = () => os.loadavg().map((n) => Number(n.toFixed(2)));

async function postgresVersion(cluster: TestCluster): Promise<string> {
  const client = new pg.Client({ connectionString: cluster.superUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ v: string }>(
      "select current_setting('server_version') as v",
    );
    return rows[0]?.v ?? "unknown";
  } finally {
    await client.end();
  }
}

export async function runComparison(
  cluster: TestCluster,
  options: ComparisonOptions,
): Promise<Comparison> {
  const log = options.log ?? (() => {});
  const loadAverageStart = loadavg();
  const runs: Comparison["runs"] = [];
  const systems = options.systems ?? SYSTEMS;
  for (let run = 1; run <= options.runs; run++) {
    for (const handler of HANDLERS) {
      const order = systems.map((_, i) => systems[(i + run - 1) % systems.length] as SystemName);
      const results: RunResult[] = [];
      for (const system of order) {
        const result = await runSystem(cluster, system, {
          jobs: options.jobs,
          concurrency: options.concurrency,
          handler,
        });
        const w = result.writes;
        log(
          `run ${run} ${handler.padEnd(6)} ${system.padEnd(15)} ${Math.round(result.jobsPerSec)} jobs/s, ${result.completed}/${result.jobs} done; per job ${(w.walBytes / 1024).toFixed(1)} KB WAL, ${w.inserted.toFixed(1)} ins, ${w.updated.toFixed(1)} upd, ${w.deleted.toFixed(1)} del, ${w.transactions.toFixed(1)} tx`,
        );
        results.push(result);
      }
      const to = (system: SystemName, r: RunResult) => {
        const other = results.find((o) => o.system === system);
        return other ? r.jobsPerSec / other.jobsPerSec : Number.NaN;
      };
      for (const r of results) {
        runs.push({ ...r, run, ratio: to("graphile-worker", r), ratioToDbos: to("dbos", r) });
      }
    }
  }
  const summary: Summary[] = [];
  for (const handler of HANDLERS) {
    for (const system of systems) {
      const mine = runs.filter((r) => r.handler === handler && r.system === system);
      summary.push({
        handler,
        system,
        medianJobsPerSec: Math.round(median(mine.map((r) => r.jobsPerSec))),
        medianRatio: Number(median(mine.map((r) => r.ratio)).toFixed(3)),
        medianRatioToDbos: Number(median(mine.map((r) => r.ratioToDbos)).toFixed(3)),
        medianCpuMsPerJob: Number(median(mine.map((r) => r.cpuMsPerJob)).toFixed(3)),
        medianWrites: {
          walBytes: Math.round(median(mine.map((r) => r.writes.walBytes))),
          inserted: Number(median(mine.map((r) => r.writes.inserted)).toFixed(3)),
          updated: Number(median(mine.map((r) => r.writes.updated)).toFixed(3)),
          deleted: Number(median(mine.map((r) => r.writes.deleted)).toFixed(3)),
          transactions: Number(median(mine.map((r) => r.writes.transactions)).toFixed(3)),
        },
        minCompleted: Math.min(
          ...mine.map((r) => Math.min(r.completed, r.sinkRows ?? r.completed)),
        ),
        jobs: options.jobs,
      });
    }
  }
  const extras = options.extras;
  let bulkEnqueue: BulkEnqueue | null = null;
  let latency: Latency | null = null;
  let dedupe: Percentiles | null = null;
  let workerRss: WorkerRss[] | null = null;
  if (extras) {
    bulkEnqueue = await benchBulkEnqueue(cluster, extras.bulkTasks, options.concurrency);
    log(`bulk enqueue: ours ${bulkEnqueue.ours}/s, addJobs ${bulkEnqueue.graphileAddJobs}/s`);
    latency = await benchLatency(cluster, extras.latencySamples);
    log(
      `enqueue → first step p50: ours ${latency.ours.p50Ms} ms, graphile ${latency.graphile.p50Ms} ms`,
    );
    dedupe = await benchDedupe(cluster, extras.dedupeSamples);
    log(`dedupe p50 ${dedupe.p50Ms} ms, p99 ${dedupe.p99Ms} ms`);
    workerRss = await benchWorkerRss(cluster, extras.rssLevels, extras.rssTasks);
    log(`worker RSS: ${workerRss.map((r) => `${r.concurrency}: ${r.peakRssMb} MB`).join(", ")}`);
  }
  const cpus = os.cpus();
  return {
    date: new Date().toISOString(),
    machine: {
      cpus: cpus.length,
      cpuModel: cpus[0]?.model ?? "unknown",
      memoryGb: Number((os.totalmem() / 1024 ** 3).toFixed(1)),
      loadAverageStart,
      loadAverageEnd: loadavg(),
      node: process.version,
      postgres: await postgresVersion(cluster),
    },
    options: {
      jobs: options.jobs,
      concurrency: options.concurrency,
      runs: options.runs,
      extras: options.extras,
    },
    settings: SETTINGS,
    runs,
    summary,
    bulkEnqueue,
    latency,
    dedupe,
    workerRss,
  };
}

const LABELS: Record<SystemName, string> = {
  "graphile-worker": "graphile-worker 0.18 (localQueue 500, batched completion)",
  "pg-boss": "pg-boss 12 (batch 100)",
  dbos: "DBOS Transact 5.3 (queue, one step, 10 ms poll)",
  "agent-ledger": "agent-ledger, one intent-keyed effect, full bookkeeping",
  ceiling: "ceiling: one-INSERT transactions",
};

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
/** A ratio, or a dash when the system it is to did not run. */
const times = (n: number, digits = 2) => (Number.isNaN(n) ? "–" : `${n.toFixed(digits)}×`);

export function renderMarkdown(c: Comparison, command: string): string {
  const lines: string[] = [];
  const m = c.machine;
  lines.push(
    `${c.date.slice(0, 10)} · ${m.cpus} cores (${m.cpuModel}), ${m.memoryGb} GB · PostgreSQL ${m.postgres} (embedded, fsync off) · Node ${m.node} · load average ${m.loadAverageStart[0]} → ${m.loadAverageEnd[0]} · \`${command}\``,
  );
  lines.push("");
  lines.push(
    `${fmt(c.options.jobs)} jobs, ${c.options.concurrency} concurrent, median of ${c.options.runs} interleaved run(s); × is the ratio to graphile-worker, or to DBOS, in the same run. Per job: what the system wrote to its database, enqueue and schema set-up included (WAL, rows inserted and updated, transactions committed).`,
  );
  lines.push("");
  lines.push(
    "| handler | system | jobs/s | × graphile-worker | × DBOS | worker CPU per job | WAL per job | rows inserted per job | rows updated per job | transactions per job | completed |",
  );
  lines.push("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const s of c.summary) {
    const handler = s.handler === "insert" ? "one INSERT" : "nothing";
    const w = s.medianWrites;
    lines.push(
      `| ${handler} | ${LABELS[s.system]} | ${fmt(s.medianJobsPerSec)} | ${times(s.medianRatio)} | ${times(s.medianRatioToDbos)} | ${s.medianCpuMsPerJob.toFixed(2)} ms | ${(w.walBytes / 1024).toFixed(1)} KB | ${w.inserted.toFixed(1)} | ${w.updated.toFixed(1)} | ${w.transactions.toFixed(1)} | ${fmt(s.minCompleted)}/${fmt(s.jobs)} |`,
    );
  }
  if (c.bulkEnqueue) {
    const b = c.bulkEnqueue;
    lines.push("");
    lines.push(`| bulk enqueue, ${fmt(b.tasks)} tasks | tasks/s | × addJobs |`);
    lines.push("| --- | ---: | ---: |");
    lines.push(`| graphile-worker addJobs (one call) | ${fmt(b.graphileAddJobs)} | 1.00× |`);
    lines.push(
      `| pg-boss insert (one call) | ${fmt(b.pgBossInsert)} | ${(b.pgBossInsert / b.graphileAddJobs).toFixed(2)}× |`,
    );
    lines.push(
      `| agent-ledger: ${b.oursPath} | ${fmt(b.ours)} | ${b.ratioToGraphile.toFixed(3)}× |`,
    );
  }
  if (c.latency || c.dedupe) {
    lines.push("");
    lines.push("| latency | samples | p50 | p99 | max |");
    lines.push("| --- | ---: | ---: | ---: | ---: |");
    const row = (label: string, p: Percentiles) =>
      lines.push(`| ${label} | ${p.samples} | ${p.p50Ms} ms | ${p.p99Ms} ms | ${p.maxMs} ms |`);
    if (c.latency) {
      row("enqueue → first step, agent-ledger (LISTEN/NOTIFY)", c.latency.ours);
      row("enqueue → handler start, graphile-worker", c.latency.graphile);
    }
    if (c.dedupe) row("repeated enqueue key (dedupe hit), agent-ledger", c.dedupe);
  }
  if (c.workerRss) {
    lines.push("");
    lines.push(
      "| worker process, agent-ledger | tasks | RSS loaded, not started | peak RSS | RSS after |",
    );
    lines.push("| --- | ---: | ---: | ---: | ---: |");
    for (const r of c.workerRss) {
      lines.push(
        `| concurrency ${r.concurrency} | ${fmt(r.tasks)} | ${r.loadedRssMb} MB | ${r.peakRssMb} MB | ${r.settledRssMb} MB |`,
      );
    }
  }
  return lines.join("\n");
}
