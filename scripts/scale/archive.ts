// `npm run scale:archive -- --before DATE --to DIR [--data-dir DIR] [--close-stale]`: archives a
// loaded scale data set as `agent-ledger archive` does (files, freeze, detach) and prints what it
// took: the time of each phase, the archive's files, the database and the ledger before and
// after, the time to verify the archive alone, joined, and the ledger, and to read one archived
// stream from the files as the task page does. The loader leaves
// tasks in every state at every age, and a month with a task still open (or dead) in it is never
// detached: --close-stale first closes the tasks created before DATE that are not closed, as
// people would have long since (dead ones rejected, open ones cancelled), in bulk in SQL (no
// review entries: a measurement's shortcut, never the product's).
import type { KeyObject } from "node:crypto";
import { readdirSync, renameSync, statSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { connectClient, createPool } from "../../db/client";
import { ARCHIVE_FILES } from "../../lib/domain/archive";
import { archiveLedger } from "../../lib/server/ledger/archive";
import { readArchivedStream } from "../../lib/server/ledger/archive-read";
import { verifyArchive } from "../../lib/server/ledger/archive-verify";
import { generateSigningKey, parsePrivateKey } from "../../lib/server/ledger/signing";
import { verifyLedger } from "../../lib/server/ledger/verify-ledger";
import { DEFAULT_SCALE_DIR, openScaleTarget } from "./target";

const { values } = parseArgs({
  options: {
    before: { type: "string" },
    to: { type: "string" },
    "data-dir": { type: "string", default: DEFAULT_SCALE_DIR },
    "close-stale": { type: "boolean" },
  },
});
const before = new Date(values.before ?? "");
if (Number.isNaN(before.getTime()) || !values.to) {
  console.error("--before DATE and --to DIR are required");
  process.exit(2);
}
const dir = values.to;

const SIZES = `select pg_database_size(current_database())::bigint as database,
  (select coalesce(sum(pg_total_relation_size(relid)), 0) from pg_partition_tree('ledger_entries'))::bigint as ledger,
  (select count(*) from ledger_entries)::bigint as entries`;
type Sizes = { database: string; ledger: string; entries: string };
const mb = (b: string | number) => `${(Number(b) / 1024 / 1024).toFixed(1)} MB`;
const timed = async <T>(label: string, fn: () => Promise<T>): Promise<T> => {
  const start = performance.now();
  const r = await fn();
  console.log(`${label}: ${((performance.now() - start) / 1000).toFixed(1)} s`);
  return r;
};

const target = await openScaleTarget(values["data-dir"]);
const pool = createPool(target.appUrl, { max: 4, applicationName: "scale-archive" });
try {
  if (values["close-stale"]) {
    const owner = await connectClient(target.ownerUrl);
    const { rowCount } = await owner.query(
      `update tasks set status = case when status = 'dead' then 'rejected' else 'cancelled' end,
              dead_reason = null, lease_owner = null, lease_expires_at = null,
              status_changed_at = least(status_changed_at, $1::timestamptz - interval '1 second')
        where status not in ('succeeded', 'rejected', 'cancelled') and created_at < $1`,
      [before],
    );
    await owner.end();
    console.log(`tasks created before ${before.toISOString()} and not closed, closed: ${rowCount}`);
  }
  const sizes = async () => (await pool.query<Sizes>(SIZES)).rows[0] as Sizes;
  const was = await sizes();
  const key = parsePrivateKey(generateSigningKey().privateKey);
  const r = await timed("archive (files, verify, freeze, detach)", () =>
    archiveLedger(pool, { before, dir, actor: "scale", signingKey: key }),
  );
  const now = await sizes();
  if (r.outcome === "archived") {
    console.log(`archived ${r.streams} streams, ${r.entries} entries`);
  }
  if (r.outcome !== "dry_run") {
    for (const m of r.detached) console.log(`detached ${m.month}: ${m.entries} entries`);
    if (r.detachError) console.log(`detach stopped: ${r.detachError}`);
  }
  for (const f of readdirSync(dir)) console.log(`  ${f}: ${mb(statSync(path.join(dir, f)).size)}`);
  console.log(
    `database ${mb(was.database)} → ${mb(now.database)}; ledger_entries ${mb(was.ledger)} → ${mb(now.ledger)}; entries ${was.entries} → ${now.entries}`,
  );
  const alone = await timed("verify --archive (files alone)", () =>
    verifyArchive(dir, { publicKey: key }),
  );
  const joined = await timed("verify --archive (joined)", () =>
    verifyArchive(dir, { publicKey: key, pool }),
  );
  const ledger = await timed("verify (the ledger)", () => verifyLedger(pool));
  console.log(
    `problems: files ${alone.problems.length}, joined ${joined.problems.length}, ledger ${ledger.problems.length} (${ledger.warnings.join("; ")})`,
  );
  if (r.outcome === "archived") await timeStreamReads(r.archiveId, key);
} finally {
  await pool.end();
  await target.release();
}

/**
 * What the task page pays to read an archived task from the files: 20 streams spread over the
 * archive, each read as readArchivedStream reads it (signature, files' digests, the stream's
 * members, its chain), the first read after start apart (it hashes both files), then the same
 * without index.json (every read gunzips the entries file up to the stream).
 */
async function timeStreamReads(archiveId: string, key: KeyObject): Promise<void> {
  const { rows } = await pool.query<{ stream: string }>(
    `select stream from ledger_streams where archived_in = $1 order by random() limit 20`,
    [archiveId],
  );
  const config = { dir: path.dirname(path.resolve(dir)), publicKey: key };
  const times = async (label: string, streams: string[]) => {
    const ms: number[] = [];
    for (const stream of streams) {
      const start = performance.now();
      const read = await readArchivedStream(config, archiveId, stream);
      if (!read.ok) throw new Error(`${stream}: ${read.unavailable.message}`);
      ms.push(performance.now() - start);
    }
    const [first = 0, ...rest] = ms;
    rest.sort((a, b) => a - b);
    const at = (q: number) =>
      (rest[Math.min(rest.length - 1, Math.floor(q * rest.length))] ?? 0).toFixed(0);
    console.log(
      `read one archived stream from the files, ${label}: first ${first.toFixed(0)} ms (hashes both files), then p50 ${at(0.5)} ms, p95 ${at(0.95)} ms (${rest.length} streams)`,
    );
  };
  const streams = rows.map((r) => r.stream);
  await times("through index.json", streams);
  const index = path.join(dir, ARCHIVE_FILES.index);
  renameSync(index, `${index}.off`);
  try {
    await times("without index.json", streams.slice(0, 4));
  } finally {
    renameSync(`${index}.off`, index);
  }
}
