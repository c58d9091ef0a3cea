// `npm run scale:load -- --entries 10000000 --tasks 1000000`: fills an empty database with a
// data set shaped like a busy deployment (see shape.ts), for `npm run scale:measure`.
import { parseArgs } from "node:util";
import { connectClient, createPool } from "../../db/client";
import { loadScale } from "./load-data";
import { DEFAULT_SCALE_DIR, openScaleTarget } from "./target";

const { values } = parseArgs({
  options: {
    entries: { type: "string", default: "1000000" },
    tasks: { type: "string", default: "100000" },
    "data-dir": { type: "string", default: DEFAULT_SCALE_DIR },
    json: { type: "boolean" },
  },
});
const entries = Number(values.entries);
const tasks = Number(values.tasks);
if (
  !Number.isSafeInteger(entries) ||
  !Number.isSafeInteger(tasks) ||
  tasks < 1 ||
  entries < tasks
) {
  console.error("--entries and --tasks must be whole numbers, at least one entry per task");
  process.exit(2);
}

function inDatabase(url: string, like: string): string {
  const u = new URL(url);
  u.pathname = new URL(like).pathname;
  return u.toString();
}

const target = await openScaleTarget(values["data-dir"]);
try {
  if (target.superUrl) {
    // Fewer checkpoints while gigabytes of WAL go by; only ever on the scale cluster.
    const su = await connectClient(target.superUrl);
    await su.query("alter system set max_wal_size = '16GB'");
    await su.query("alter system set maintenance_work_mem = '1GB'");
    await su.query("select pg_reload_conf()");
    await su.end();
  }
  // The embedded cluster's superuser, in the scale database (the owner elsewhere): it may drop
  // and re-create the indexes and keys around the bulk insert (load-data.ts).
  const loadUrl = target.superUrl ? inDatabase(target.superUrl, target.ownerUrl) : target.ownerUrl;
  const pool = createPool(loadUrl, { max: 3, applicationName: "scale-load" });
  try {
    const existing = await pool.query<{ n: number }>(
      "select count(*)::int as n from ledger_entries",
    );
    if ((existing.rows[0]?.n ?? 0) > 0) {
      console.error(
        `the database already holds ${existing.rows[0]?.n} ledger entries; load into an empty one (remove ${values["data-dir"]} or point DATABASE_URL elsewhere)`,
      );
      process.exitCode = 1;
    } else {
      let shown = 0;
      const report = await loadScale(pool, {
        entries,
        tasks,
        log: (line) => console.error(line),
        onProgress: (p) => {
          if (values.json || p.tasks - shown < tasks / 20) return;
          shown = p.tasks;
          console.error(`… ${p.tasks} tasks, ${p.entries} entries`);
        },
      });
      if (values.json) console.log(JSON.stringify(report));
      else
        console.log(
          `loaded ${report.tasks} tasks, ${report.entries} ledger entries, ${report.effects} effects, ${report.steps} steps in ${report.seconds.toFixed(1)} s`,
        );
    }
  } finally {
    await pool.end();
  }
} finally {
  await target.release();
}
