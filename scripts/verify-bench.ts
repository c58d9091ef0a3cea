// `node --import tsx scripts/verify-bench.ts [--entries 200000] [--tasks 20000] [--after 2000]`:
// how fast `verify` reads the ledger. Loads the scale data set (scripts/scale/load-data.ts)
// into a throwaway PostgreSQL, writes a signed checkpoint, appends `--after` entries past it
// (half to existing streams, half to new ones), then times a full pass and a pass from the
// checkpoint, each in a child process of its own so its peak RSS is the verify's alone
// (`--prof DIR` runs the children under node --cpu-prof). Figures are printed, never asserted.
import { spawnSync } from "node:child_process";
import os from "node:os";
import { parseArgs } from "node:util";
import { createPool, withTransaction } from "../db/client";
import { createTestDatabaseFrom, dropTestDatabase, startTestCluster } from "../db/testing/cluster";
import { writeCheckpoint } from "../lib/server/commands/write-checkpoint";
import { appendLedger } from "../lib/server/ledger/append-ledger";
import { generateSigningKey, parsePrivateKey, parsePublicKey } from "../lib/server/ledger/signing";
import { verifyLedger } from "../lib/server/ledger/verify-ledger";
import { loadScale } from "./scale/load-data";

const { values } = parseArgs({
  options: {
    entries: { type: "string", default: "200000" },
    tasks: { type: "string", default: "20000" },
    after: { type: "string", default: "2000" },
    prof: { type: "string" },
    // Internal: the child that runs one verify pass.
    child: { type: "string" },
    url: { type: "string" },
    key: { type: "string" },
    batch: { type: "string" },
    // Keep the loaded database until interrupted, printing how to run a pass against it.
    hold: { type: "boolean" },
  },
});

if (values.child) {
  const pool = createPool(values.url ?? "", { max: 1, applicationName: "verify-bench" });
  const started = performance.now();
  const report = await withTransaction(pool, async (client) => {
    await client.query("set transaction isolation level repeatable read, read only");
    return verifyLedger(client, {
      publicKey: values.key ? parsePublicKey(values.key) : undefined,
      from: values.child === "checkpoint" ? "checkpoint" : "start",
      batchSize: values.batch ? Number(values.batch) : undefined,
    });
  });
  const seconds = (performance.now() - started) / 1000;
  await pool.end();
  console.log(
    JSON.stringify({
      mode: report.mode,
      ok: report.ok,
      problems: report.problems.length,
      warnings: report.warnings,
      entries: report.entries,
      streams: report.streams,
      seconds,
      perSec: Math.round(report.entries / seconds),
      maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    }),
  );
  process.exit(0);
}

const entries = Number(values.entries);
const tasks = Number(values.tasks);
const after = Number(values.after);
const { cluster, stop } = await startTestCluster(process.env.TEST_DATABASE_URL);
const db = await createTestDatabaseFrom(cluster, "verify-bench");
try {
  const superPool = createPool(db.superUrl, { max: 3, applicationName: "verify-bench-load" });
  const loadStarted = performance.now();
  const loaded = await loadScale(superPool, { entries, tasks });
  console.error(
    `loaded ${loaded.entries} entries over ${loaded.tasks} tasks in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`,
  );
  const key = generateSigningKey();
  const appPool = createPool(db.appUrl, { max: 2, applicationName: "verify-bench" });
  await writeCheckpoint(appPool, {
    actor: "bench",
    signingKey: parsePrivateKey(key.privateKey),
  });
  const { rows } = await appPool.query<{ stream: string }>(
    "select stream from ledger_streams where stream like 'task:%' order by stream limit $1",
    [Math.ceil(after / 2)],
  );
  await withTransaction(appPool, async (c) => {
    for (const [i, r] of rows.entries())
      await appendLedger(c, r.stream, { kind: "note.added", actor: "bench", data: { i } });
    for (let i = 0; i < after - rows.length; i += 10) {
      await appendLedger(
        c,
        `bench:new:${i}`,
        Array.from({ length: 10 }, (_, j) => ({ kind: "note.added", actor: "bench", data: { j } })),
      );
    }
  });
  await appPool.end();
  // Counted, not added up: a checkpoint is one entry per heads chunk and one more.
  const { rows: total } = await superPool.query<{ n: number }>(
    "select count(*)::int as n from ledger_entries",
  );
  await superPool.query("vacuum analyze ledger_entries");
  await superPool.end();

  if (values.hold) {
    console.error(
      `holding: node --import tsx ${import.meta.filename} --child start|checkpoint --url '${db.appUrl}' --key ${key.publicKey}`,
    );
    // A pending promise alone does not keep Node running; the timer does, until the interrupt.
    const alive = setInterval(() => undefined, 3_600_000);
    await new Promise((resolve) => process.once("SIGINT", resolve));
    clearInterval(alive);
  }
  const results: Record<string, unknown> = {};
  for (const mode of ["start", "checkpoint"] as const) {
    const prof = values.prof ? ["--cpu-prof", "--cpu-prof-dir", `${values.prof}/${mode}`] : [];
    const child = spawnSync(
      process.execPath,
      [
        ...prof,
        "--import",
        "tsx",
        import.meta.filename,
        "--child",
        mode,
        "--url",
        db.appUrl,
        "--key",
        key.publicKey,
      ],
      { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
    );
    if (child.status !== 0) throw new Error(`the ${mode} pass failed (exit ${child.status})`);
    results[mode] = JSON.parse(child.stdout.trim().split("\n").at(-1) ?? "{}");
  }
  console.log(
    JSON.stringify(
      {
        date: new Date().toISOString(),
        cores: os.cpus().length,
        loadAverage: os.loadavg().map((l) => Number(l.toFixed(2))),
        entries: total[0]?.n ?? 0,
        streams: tasks,
        results,
      },
      null,
      2,
    ),
  );
} finally {
  await dropTestDatabase(cluster, db.name);
  await stop();
}
