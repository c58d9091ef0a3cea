// `node --import tsx scripts/checkpoint-bench.ts --streams 1000000 --data-dir /work/ckpt-1m`:
// what writing a checkpoint costs as streams grow. Loads N streams of one entry each (named and
// shaped like task streams, hashed as the ledger hashes, without the tasks, effects and steps
// of the scale data set, which take an hour to load at a million) into an embedded cluster in
// --data-dir, then writes a signed
// checkpoint in a child process of its own (so its peak RSS is the write's alone) and reports
// the wall time, the biggest entry it appended and that peak. `--impl DIR` takes
// write-checkpoint.ts from another checkout (a `git worktree` of an older commit) to measure
// the code before; `--rollback` undoes the write so runs can alternate on one data set;
// `--verify` times `verify --since-checkpoint` from the checkpoint just written. The data dir
// stays (delete it when done). Figures are printed, never asserted.
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createPool } from "../db/client";
import { ensureEmbeddedDatabase } from "../db/embedded";
import { migrateDatabase } from "../db/migrate";
import { GENESIS_HASH } from "../lib/domain/hash";
import { generateSigningKey, parsePrivateKey } from "../lib/server/ledger/signing";
import { canonical, fastEntryHash } from "./scale/canonical";
import { insertEntries } from "./scale/load-data";
import type { LoadedEntry } from "./scale/shape";

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
    const started = performance.now();
    await loadStreams(handle.appUrl, streams);
    const vacuum = createPool(handle.ownerUrl, { max: 1 });
    await vacuum.query("vacuum analyze ledger_streams, ledger_entries");
    await vacuum.end();
    console.error(
      `loaded ${streams} streams in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
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

/** `count` streams `task:<uuid>` of one task.enqueued entry each, by COPY in one transaction. */
async function loadStreams(url: string, count: number): Promise<void> {
  const pool = createPool(url, { max: 1, applicationName: "checkpoint-bench-load" });
  const client = await pool.connect();
  try {
    await client.query("begin");
    const at = new Date(Date.now() - 86_400_000).toISOString();
    for (let done = 0; done < count; ) {
      const n = Math.min(20_000, count - done);
      const entries: LoadedEntry[] = [];
      for (let i = 0; i < n; i++) {
        const data = { agent: "refund", n: done + i };
        const e = {
          stream: `task:${randomUUID()}`,
          seq: 1,
          at,
          kind: "task.enqueued",
          actor: "api",
          taskId: null,
          key: null,
          data,
        };
        const dataText = canonical(data);
        const hash = fastEntryHash(GENESIS_HASH, e, dataText);
        entries.push({ ...e, dataText, hash });
      }
      await insertEntries(
        client,
        entries.map((e) => ({ entries: [e] })),
      );
      done += n;
    }
    await client.query("commit");
  } finally {
    client.release();
    await pool.end();
  }
}
