// `node --import tsx scripts/checkpoint-bench.ts --streams 1000000 --data-dir /work/ckpt-1m`:
// what writing a checkpoint costs as streams grow. Loads the scale data set (one task stream
// per task, scripts/scale/) into an embedded cluster in --data-dir, then writes a signed
// checkpoint in a child process of its own (so its peak RSS is the write's alone) and reports
// the wall time, the biggest entry it appended and that peak. `--impl DIR` takes
// write-checkpoint.ts from another checkout (a `git worktree` of an older commit) to measure
// the code before; `--rollback` undoes the write so runs can alternate on one data set;
// `--verify` times `verify --since-checkpoint` from the checkpoint just written. The data dir
// stays (delete it when done). Figures are printed, never asserted.
import { spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createPool } from "../db/client";
import { ensureEmbeddedDatabase } from "../db/embedded";
import { migrateDatabase } from "../db/migrate";
import { generateSigningKey, parsePrivateKey } from "../lib/server/ledger/signing";
import { loadScale } from "./scale/load-data";

const { values } = parseArgs({
  options: {
    streams: { type: "string", default: "100000" },
    "data-dir": { type: "string" },
    impl: { type: "string" },
    rollback: { type: "boolean" },
    // After a committed write: time `verify --since-checkpoint` from it (verify-bench.ts's child).
    verify: { type: "boolean" },
    // Internal: the child that writes one checkpoint.
    child: { type: "boolean" },
    url: { type: "string" },
    key: { type: "string" },
  },
});

if (values.child) {
  const impl = path.resolve(values.impl ?? path.join(import.meta.dirname, ".."));
  const { writeCheckpointIn } = await import(
    path.join(impl, "lib/server/commands/write-checkpoint.ts")
  );
  const pool = createPool(values.url ?? "", { max: 1, applicationName: "checkpoint-bench" });
  const client = await pool.connect();
  const started = performance.now();
  await client.query("begin");
  const before = await client.query<{ seq: number }>(
    "select coalesce(max(seq), 0)::int as seq from ledger_entries where stream = 'system'",
  );
  const result = await writeCheckpointIn(client, {
    actor: "bench",
    signingKey: parsePrivateKey(values.key ?? ""),
  });
  const { rows } = await client.query<{ entries: number; stored: number; text: number }>(
    `select count(*)::int as entries, max(pg_column_size(data))::int as stored,
            max(octet_length(data::text))::int as text
       from ledger_entries where stream = 'system' and seq > $1`,
    [before.rows[0]?.seq ?? 0],
  );
  await client.query(values.rollback ? "rollback" : "commit");
  const seconds = (performance.now() - started) / 1000;
  client.release();
  await pool.end();
  console.log(
    JSON.stringify({
      impl: values.impl ? "old" : "new",
      streams: result.streams,
      entriesAppended: rows[0]?.entries,
      biggestEntryBytes: rows[0]?.text,
      biggestEntryStoredBytes: rows[0]?.stored,
      seconds: Number(seconds.toFixed(2)),
      maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
      committed: !values.rollback,
    }),
  );
  process.exit(0);
}

const streams = Number(values.streams);
const dataDir = values["data-dir"];
if (!dataDir || !Number.isSafeInteger(streams) || streams < 1) {
  console.error("--data-dir DIR and --streams N (a whole number) are needed");
  process.exit(2);
}
const handle = await ensureEmbeddedDatabase(dataDir);
try {
  await migrateDatabase(handle.ownerUrl);
  const probe = createPool(handle.appUrl, { max: 1 });
  const have = await probe.query<{ n: number }>("select count(*)::int as n from ledger_streams");
  await probe.end();
  if ((have.rows[0]?.n ?? 0) === 0) {
    // The superuser, in the app database: the load drops and re-creates indexes and keys.
    const u = new URL(handle.superUrl);
    u.pathname = new URL(handle.ownerUrl).pathname;
    const loadPool = createPool(u.toString(), { max: 3, applicationName: "checkpoint-bench-load" });
    const loaded = await loadScale(loadPool, { entries: streams, tasks: streams });
    await loadPool.query("vacuum analyze ledger_streams");
    await loadPool.query("vacuum analyze ledger_entries");
    await loadPool.end();
    console.error(`loaded ${loaded.tasks} streams in ${loaded.seconds.toFixed(1)} s`);
  }
  const key = generateSigningKey();
  const child = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      import.meta.filename,
      "--child",
      "--url",
      handle.appUrl,
      "--key",
      key.privateKey,
      ...(values.impl ? ["--impl", values.impl] : []),
      ...(values.rollback ? ["--rollback"] : []),
    ],
    { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
  );
  if (child.status !== 0) throw new Error(`the checkpoint write failed (exit ${child.status})`);
  const result = JSON.parse(child.stdout.trim().split("\n").at(-1) ?? "{}");
  let verify: unknown;
  if (values.verify && result.committed) {
    const v = spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        path.join(import.meta.dirname, "verify-bench.ts"),
        "--child",
        "checkpoint",
        "--url",
        handle.appUrl,
        "--key",
        key.publicKey,
      ],
      { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
    );
    if (v.status !== 0) throw new Error(`the verify pass failed (exit ${v.status})`);
    verify = JSON.parse(v.stdout.trim().split("\n").at(-1) ?? "{}");
  }
  console.log(
    JSON.stringify({
      date: new Date().toISOString(),
      cores: os.cpus().length,
      loadAverage: os.loadavg().map((l) => Number(l.toFixed(2))),
      write: result,
      ...(verify ? { verifySinceCheckpoint: verify } : {}),
    }),
  );
} finally {
  await handle.release();
}
