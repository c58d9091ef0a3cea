// `npm run scale:measure [-- --label after --runs 30 --only ledger]`: times every query behind
// the screens, the API listings and the metrics scrape on the loaded data (npm run scale:load),
// prints a markdown table of p50/p95 and writes benchmarks/scale-<label>.json. It migrates the
// database first and VACUUM ANALYZEs the loaded tables, so measuring after a new index
// migration is the same command.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { connectClient, createDb, createPool } from "../../db/client";
import { PROJECT_ROOT } from "../../db/open";
import { LOADED_TABLES } from "./bulk-schema";
import { ADMIN_VIEWER, CASES } from "./cases";
import { explainCases } from "./explain";
import { markdownTable, runCases, summarize, TARGET_P95_MS } from "./run-cases";
import { findSamples } from "./samples";
import { DEFAULT_SCALE_DIR, openScaleTarget } from "./target";

const { values } = parseArgs({
  options: {
    label: { type: "string", default: "latest" },
    runs: { type: "string", default: "30" },
    warmup: { type: "string", default: "1" },
    "budget-ms": { type: "string", default: "8000" },
    /** Runs before --budget-ms may cut a case short (at 10M a query of 20 s says enough in 3). */
    "min-runs": { type: "string", default: "5" },
    only: { type: "string" },
    /** Print EXPLAIN (ANALYZE, BUFFERS) of each statement of the cases matching this, instead of timing. */
    explain: { type: "string" },
    /** Measure the schema as loaded, before newer migrations (a "before" figure). */
    "no-migrate": { type: "boolean" },
    /** Skip the VACUUM ANALYZE of the loaded tables before timing. */
    "no-vacuum": { type: "boolean" },
    "data-dir": { type: "string", default: DEFAULT_SCALE_DIR },
    out: { type: "string", default: path.join(PROJECT_ROOT, "benchmarks") },
  },
});
if (!/^[a-z0-9][a-z0-9._-]*$/.test(values.label)) {
  console.error("--label: lower-case letters, digits, dots, dashes");
  process.exit(2);
}

const target = await openScaleTarget(values["data-dir"], { migrate: !values["no-migrate"] });
const pool = createPool(target.appUrl, { max: 10, applicationName: "scale-measure" });
try {
  if (target.applied > 0) console.error(`applied ${target.applied} migration(s) first`);
  if (!values["no-vacuum"]) {
    // A migration that rewrites a table (a stored generated column on tasks did) leaves it
    // with an empty visibility map and no statistics for new expressions, and autovacuum has no
    // reason to come round: every index-only scan then reads the heap. Measure the settled
    // database a live deployment's autovacuum leaves; on a vacuumed table this is seconds.
    const owner = await connectClient(target.ownerUrl);
    try {
      await owner.query(`vacuum (analyze) ${LOADED_TABLES.join(", ")}`);
    } finally {
      await owner.end();
    }
  }
  const size = await pool.query<{ entries: number; tasks: number; effects: number }>(
    `select (select count(*) from ledger_entries)::int as entries, (select count(*) from tasks)::int as tasks,
            (select count(*) from effects)::int as effects`,
  );
  const s = await findSamples(pool);
  const only = values.only === undefined ? null : new RegExp(values.only, "i");
  const cases = CASES.filter((c) => !only || only.test(c.name));
  if (values.explain !== undefined) {
    const pattern = new RegExp(values.explain, "i");
    const ctx = { pool, db: createDb(pool), viewer: ADMIN_VIEWER, s };
    console.log(
      await explainCases(
        ctx,
        cases.filter((c) => pattern.test(c.name)),
      ),
    );
  } else {
    const results = await runCases({ pool, db: createDb(pool), viewer: ADMIN_VIEWER, s }, cases, {
      runs: Number(values.runs),
      warmup: Number(values.warmup),
      budgetMs: Number(values["budget-ms"]),
      minRuns: Number(values["min-runs"]),
      onResult: (r) =>
        console.error(`${r.name}: p95 ${r.p95Ms} ms${r.error ? ` (error: ${r.error})` : ""}`),
    });
    const data = size.rows[0];
    console.log(
      `\n${data?.entries} ledger entries, ${data?.tasks} tasks, ${data?.effects} effects; up to ${values.runs} runs per case after a warm-up (fewer once a case has spent --budget-ms)\n`,
    );
    console.log(markdownTable(results));
    const summary = summarize(results);
    console.log(
      `\n${summary.underTarget} of ${summary.cases} cases under ${TARGET_P95_MS} ms p95${summary.over.length ? `; over: ${summary.over.map((o) => `${o.name} ${o.error ? "(error)" : `${o.p95Ms} ms`}`).join(", ")}` : ""}`,
    );
    mkdirSync(values.out, { recursive: true });
    const file = path.join(values.out, `scale-${values.label}.json`);
    writeFileSync(
      file,
      `${JSON.stringify({ label: values.label, measuredAt: new Date().toISOString(), ...data, runs: Number(values.runs), summary, results }, null, 2)}\n`,
    );
    console.error(`\nwrote ${path.relative(PROJECT_ROOT, file)}`);
  }
} finally {
  await pool.end();
  await target.release();
}
