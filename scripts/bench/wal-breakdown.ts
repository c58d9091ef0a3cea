// `npm run bench -- --section wal`: where a job's WAL goes. Runs the compare section's run of our
// system (one intent-keyed effect whose tool INSERTs a row, on a database of its own) and reads
// the WAL it wrote back with pg_walinspect, summed per relation (heap and each index) and
// per record type, per job. Enqueue included. Other databases' records are left out (but for
// records of no relation, such as their commits).
import pg from "pg";
import type { TestCluster } from "../../db/testing/cluster";
import { runSystem } from "./compare/systems";

export type WalBreakdown = {
  jobs: number;
  /** This database's records (and the records of no relation) per job. */
  walBytesPerJob: number;
  /** The WAL written over the run, per job, whoever wrote it (pg_current_wal_insert_lsn). */
  lsnBytesPerJob: number;
  byRelation: { relation: string; bytesPerJob: number; recordsPerJob: number }[];
  byRecord: { record: string; bytesPerJob: number; recordsPerJob: number }[];
  /** Relation and record type together, the largest first. */
  byBoth: { relation: string; record: string; bytesPerJob: number; recordsPerJob: number }[];
};

const perJob = (n: number, jobs: number) => Number((n / jobs).toFixed(2));

export async function walBreakdown(
  cluster: TestCluster,
  jobs: number,
  concurrency: number,
): Promise<WalBreakdown> {
  // A slot holds the run's WAL until it is read: with other suites writing to the same cluster,
  // a checkpoint could otherwise recycle the segments the run began in before pg_walinspect
  // reads them ("requested WAL segment … has already been removed").
  const slot = `agent_ledger_wal_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: cluster.superUrl });
  admin.on("error", () => {});
  await admin.connect();
  try {
    // Temporary: it goes with this session, even if this process is killed.
    await admin.query("select pg_create_physical_replication_slot($1, true, true)", [slot]);
    return await breakdownOfRun(cluster, jobs, concurrency);
  } finally {
    await admin.end();
  }
}

async function breakdownOfRun(
  cluster: TestCluster,
  jobs: number,
  concurrency: number,
): Promise<WalBreakdown> {
  let records: { relation: string; record: string; bytes: string; n: string }[] = [];
  // The compare section's run of our system; between its two snapshots, every WAL record.
  const run = await runSystem(
    cluster,
    "agent-ledger",
    { jobs, concurrency, handler: "insert" },
    async (db, before, after) => {
      const su = new pg.Client({ connectionString: db.superUrl });
      su.on("error", () => {});
      await su.connect();
      try {
        await su.query("create extension if not exists pg_walinspect");
        // pg_walinspect reads only WAL already flushed, and the clusters here commit with
        // synchronous_commit off: one synchronous commit flushes everything up to the run's end.
        await su.query("begin");
        await su.query("set local synchronous_commit = on");
        // A commit flushes only if its transaction wrote WAL: a transactional message writes some.
        await su.query("select pg_logical_emit_message(true, 'agent-ledger-bench', 'flush')");
        await su.query("commit");
        // Each record once, by the first relation it touches (block 0 of its block references).
        ({ rows: records } = await su.query(
          `with r as (
           select resource_manager || '/' || split_part(record_type, ' ', 1) as record,
                  record_length, substring(block_ref from 'rel [0-9]+/[0-9]+/([0-9]+)') as filenode,
                  substring(block_ref from 'rel [0-9]+/([0-9]+)/')::oid as db
             from pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)
         )
         select coalesce(p.relname, c.relname, case when r.filenode is null then '(no relation)' else 'filenode ' || r.filenode end) as relation,
                r.record, sum(r.record_length)::text as bytes, count(*)::text as n
           from r left join pg_class c on c.relfilenode = r.filenode::oid
           -- A partition (of ledger_entries) and its indexes count as their parent's.
           left join pg_inherits i on i.inhrelid = c.oid
           left join pg_class p on p.oid = i.inhparent
          -- This database's records (and those of no relation: commits): a test beside it in
          -- the same cluster writes to its own database.
          where r.db is null or r.db = (select oid from pg_database where datname = current_database())
          group by 1, 2`,
          [before.lsn, after.lsn],
        ));
      } finally {
        await su.end();
      }
    },
  );
  const total = records.reduce((s, r) => s + Number(r.bytes), 0);
  const group = (key: "relation" | "record") => {
    const sums = new Map<string, { bytes: number; n: number }>();
    for (const r of records) {
      const s = sums.get(r[key]) ?? { bytes: 0, n: 0 };
      s.bytes += Number(r.bytes);
      s.n += Number(r.n);
      sums.set(r[key], s);
    }
    return [...sums.entries()]
      .sort((a, b) => b[1].bytes - a[1].bytes)
      .map(([name, s]) => ({
        name,
        bytesPerJob: perJob(s.bytes, jobs),
        recordsPerJob: perJob(s.n, jobs),
      }));
  };
  return {
    jobs,
    walBytesPerJob: perJob(total, jobs),
    lsnBytesPerJob: Number(run.writes.walBytes.toFixed(2)),
    byRelation: group("relation").map(({ name, ...s }) => ({ relation: name, ...s })),
    byRecord: group("record").map(({ name, ...s }) => ({ record: name, ...s })),
    byBoth: records
      .map((r) => ({
        relation: r.relation,
        record: r.record,
        bytesPerJob: perJob(Number(r.bytes), jobs),
        recordsPerJob: perJob(Number(r.n), jobs),
      }))
      .filter((r) => r.bytesPerJob >= 1)
      .sort((a, b) => b.bytesPerJob - a.bytesPerJob),
  };
}

export function renderWalBreakdown(w: WalBreakdown): string {
  const lines = [
    `${w.jobs.toLocaleString("en-US")} one-effect jobs: ${(w.walBytesPerJob / 1024).toFixed(2)} KB of WAL per job`,
    "",
    "| relation | bytes per job | records per job |",
    "| --- | ---: | ---: |",
    ...w.byRelation.map(
      (r) => `| ${r.relation} | ${Math.round(r.bytesPerJob)} | ${r.recordsPerJob} |`,
    ),
    "",
    "| record | bytes per job | records per job |",
    "| --- | ---: | ---: |",
    ...w.byRecord.map((r) => `| ${r.record} | ${Math.round(r.bytesPerJob)} | ${r.recordsPerJob} |`),
  ];
  return lines.join("\n");
}
