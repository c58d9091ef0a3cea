// `npm run bench`: two sections on one throwaway PostgreSQL. "compare" (scripts/bench/compare):
// us against graphile-worker, pg-boss, DBOS and a one-INSERT ceiling, as a markdown table and a
// JSON file under benchmarks/. "ledger": ledger append throughput as a ratio against a baseline
// measured in the same process on the same database (the same rows inserted into a plain table
// with no chain, no head lock and no triggers), the runtime against a bare queue, the API against
// the library. Ratios, not absolute timings, are what we compare. `-- --quick`: about a minute.
// "scale-out" (scripts/bench/scale-out.ts, only when asked for): 1, 2 and 4 worker processes
// holding the same total in flight (`--in-flight 16,64`); `--systems agent-ledger,graphile-worker`
// runs the bare queue beside ours the same way.
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type pg from "pg";
import { createPool, withTransaction } from "../db/client";
import { createTestDatabaseFrom, dropTestDatabase, startTestCluster } from "../db/testing/cluster";
import { env } from "../lib/env";
import { appendLedger } from "../lib/server/ledger/append-ledger";
import { benchApi } from "./bench/api";
import { renderMarkdown, runComparison } from "./bench/compare/index";
import { SYSTEMS, type SystemName } from "./bench/compare/systems";
import { benchBareQueue, benchRuntime } from "./bench/runtime";
import { scaleOutSection } from "./bench/scale-out";
import { renderWalBreakdown, walBreakdown } from "./bench/wal-breakdown";

const { values } = parseArgs({
  options: {
    quick: { type: "boolean" },
    section: { type: "string", default: "all" },
    jobs: { type: "string" },
    runs: { type: "string" },
    out: { type: "string" },
    ops: { type: "string" },
    concurrency: { type: "string", default: "16" },
    tasks: { type: "string" },
    json: { type: "boolean" },
    systems: { type: "string" },
    "in-flight": { type: "string" },
  },
});
const quick = values.quick ?? false;
const ops = Number(values.ops ?? (quick ? 200 : 2000));
const concurrency = Number(values.concurrency);
const section = values.section;
if (!["all", "compare", "ledger", "scale-out", "wal"].includes(section)) {
  throw new Error(`--section is all, compare, ledger, scale-out or wal, not ${section}`);
}

async function timed(
  label: string,
  pool: pg.Pool,
  op: (client: pg.PoolClient, i: number) => Promise<unknown>,
): Promise<{ label: string; opsPerSec: number }> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < ops) {
        const i = next++;
        await withTransaction(pool, (c) => op(c, i));
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  return { label, opsPerSec: ops / seconds };
}

const data = (i: number) => ({ tool: "send_email", args: { to: `user${i}@example.com`, n: i } });

const { cluster, stop } = await startTestCluster(env().TEST_DATABASE_URL);
try {
  if (section === "all" || section === "compare") await compareSection();
  if (section === "all" || section === "ledger") await ledgerSection();
  if (section === "wal") {
    const w = await walBreakdown(
      cluster,
      Number(values.jobs ?? (quick ? 500 : 5_000)),
      concurrency,
    );
    if (values.out) writeFileSync(values.out, `${JSON.stringify(w, null, 2)}\n`);
    console.log(renderWalBreakdown(w));
  }
  if (section === "scale-out") {
    await scaleOutSection(cluster, { ...values, quick, inFlight: values["in-flight"] });
  }
} finally {
  await stop();
}

async function compareSection() {
  const jobs = Number(values.jobs ?? (quick ? 300 : 20_000));
  const systems = values.systems?.split(",").map((s) => s.trim()) as SystemName[] | undefined;
  const unknown = systems?.filter((s) => !SYSTEMS.includes(s));
  if (unknown?.length)
    throw new Error(`--systems: unknown ${unknown.join(", ")} (${SYSTEMS.join(", ")})`);
  const comparison = await runComparison(cluster, {
    systems,
    jobs,
    concurrency,
    runs: Number(values.runs ?? (quick ? 1 : 3)),
    // Only the chosen systems when some are named: the extras measure them all.
    extras: systems
      ? null
      : {
          bulkTasks: quick ? 500 : jobs,
          latencySamples: quick ? 30 : 300,
          dedupeSamples: quick ? 100 : 1_000,
          rssTasks: quick ? 200 : 3_000,
          rssLevels: [1, 16, 64],
        },
    log: (line) => console.error(line),
  });
  const command = `npm run bench -- ${process.argv.slice(2).join(" ")}`.trim().replace(/ --$/, "");
  const out = values.out ?? `benchmarks/bench-compare${quick ? "-quick" : ""}.json`;
  writeFileSync(out, `${JSON.stringify({ command, ...comparison }, null, 2)}\n`);
  console.log(`${renderMarkdown(comparison, command)}\n\n(JSON: ${out})\n`);
}

async function ledgerSection() {
  const db = await createTestDatabaseFrom(cluster, "bench");
  const pool = createPool(db.appUrl, { max: concurrency });
  const owner = createPool(db.ownerUrl, { max: 1 });
  try {
    await ledgerCases(pool, owner);
  } finally {
    await pool.end();
    await owner.end();
    await dropTestDatabase(cluster, db.name);
  }
}

async function ledgerCases(pool: pg.Pool, owner: pg.Pool) {
  await owner.query(
    `create table bench_plain (id bigint generated always as identity primary key, stream text not null,
       at timestamptz not null default now(), kind text not null, actor text not null, data jsonb not null)`,
  );
  await owner.query("grant select, insert on bench_plain to agent_ledger_app");
  const results = [];
  // Warm up connections and plans.
  await timed("warm-up", pool, (c, i) =>
    appendLedger(c, `warm:${i % 8}`, { kind: "x", actor: "b" }),
  );
  const baseline = await timed("baseline: plain insert", pool, (c, i) =>
    c.query("insert into bench_plain (stream, kind, actor, data) values ($1, $2, $3, $4)", [
      `task:${i % 64}`,
      "effect.started",
      "worker",
      JSON.stringify(data(i)),
    ]),
  );
  results.push(baseline);
  results.push(
    await timed("appendLedger, 64 streams", pool, (c, i) =>
      appendLedger(c, `many:${i % 64}`, { kind: "effect.started", actor: "worker", data: data(i) }),
    ),
  );
  results.push(
    await timed("appendLedger, one stream", pool, (c, i) =>
      appendLedger(c, "one", { kind: "effect.started", actor: "worker", data: data(i) }),
    ),
  );
  results.push(
    await timed("appendLedger, 5 entries per call", pool, (c, i) =>
      appendLedger(
        c,
        `batch:${i % 64}`,
        Array.from({ length: 5 }, () => ({
          kind: "step.completed",
          actor: "worker",
          data: data(i),
        })),
      ),
    ),
  );
  const rows = results.map((r) => ({
    ...r,
    opsPerSec: Math.round(r.opsPerSec),
    ratio: Number((r.opsPerSec / baseline.opsPerSec).toFixed(2)),
  }));
  const tasks = Number(values.tasks ?? (quick ? 100 : 1000));
  const bare = await benchBareQueue(pool, tasks, concurrency);
  const full = await benchRuntime(pool, tasks, concurrency);
  const runtime = [
    { label: "bare queue: claim + complete", tasksPerSec: Math.round(bare), ratio: 1 },
    {
      label: "runtime: step + effect + ledger",
      tasksPerSec: Math.round(full),
      ratio: Number((full / bare).toFixed(2)),
    },
  ];
  const api = (await benchApi(pool, tasks, concurrency)).map((c) => ({
    label: c.label,
    requestsPerSec: Math.round(c.perSec),
    ratio: Number(c.ratio.toFixed(2)),
  }));
  if (values.json) {
    console.log(JSON.stringify({ ops, concurrency, tasks, results: rows, runtime, api }));
  } else {
    console.log(`${ops} transactions per case, ${concurrency} concurrent\n`);
    for (const r of rows) {
      console.log(
        `${r.label.padEnd(36)} ${String(r.opsPerSec).padStart(7)} tx/s   ${r.ratio.toFixed(2)}× baseline`,
      );
    }
    console.log(`\n${tasks} tasks per case, ${concurrency} concurrent\n`);
    for (const r of runtime) {
      console.log(
        `${r.label.padEnd(36)} ${String(r.tasksPerSec).padStart(7)} tasks/s ${r.ratio.toFixed(2)}× bare queue`,
      );
    }
    console.log(`\n${tasks} requests per case, ${concurrency} concurrent\n`);
    for (const r of api) {
      console.log(
        `${r.label.padEnd(36)} ${String(r.requestsPerSec).padStart(7)} req/s   ${r.ratio.toFixed(2)}× library enqueue`,
      );
    }
  }
}
