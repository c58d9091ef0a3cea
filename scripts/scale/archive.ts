// `npm run scale:archive -- --before DATE --to DIR [--data-dir DIR] [--close-stale]`: archives a
// loaded scale data set as `agent-ledger archive` does (files, freeze, detach) and prints what it
// took: the time of each phase, the archive's files, the database and the ledger before and
// after, and the time to verify the archive alone, joined, and the ledger. The loader leaves
// tasks in every state at every age, and a month with a task still open (or dead) in it is never
// detached: --close-stale first closes the tasks created before DATE that are not closed, as
// people would have long since (dead ones rejected, open ones cancelled), in bulk in SQL (no
// review entries: a measurement's shortcut, never the product's).
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { connectClient, createPool } from "../../db/client";
import { archiveLedger } from "../../lib/server/ledger/archive";
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
} finally {
  await pool.end();
  await target.release();
}
