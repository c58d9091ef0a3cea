// What a system wrote to PostgreSQL for its jobs: WAL bytes (pg_current_wal_insert_lsn, where WAL
// is inserted, not where it is written out, which lags under synchronous_commit off; cluster-wide,
// so nothing else may run meanwhile) and rows inserted / updated / deleted and transactions
// committed (pg_stat_database of the system's own database). A backend reports its counters when it ends or
// at most once a second while busy, so the closing snapshot is taken after every connection the
// system opened has ended: the drop of its database waits for that too.
import pg from "pg";

export type DbStats = {
  /** pg_current_wal_insert_lsn() as PostgreSQL writes it (X/Y). */
  lsn: string;
  walBytes: bigint;
  inserted: number;
  updated: number;
  deleted: number;
  commits: number;
};

export type PerJob = {
  walBytes: number;
  inserted: number;
  updated: number;
  deleted: number;
  transactions: number;
};

/**
 * Reads the counters as the superuser from a connection to the `postgres` database, so that the
 * reading itself is not counted among the system's transactions. Unless `settled` is false
 * (the database's connections are still in use, as the scale-out section's workers are before
 * and after its clock), it first waits for the database's other connections to end.
 */
export async function readDbStats(
  superUrl: string,
  database: string,
  settled = true,
): Promise<DbStats> {
  const url = new URL(superUrl);
  url.pathname = "/postgres";
  const client = new pg.Client({ connectionString: url.toString() });
  client.on("error", () => {});
  await client.connect();
  try {
    // Wait for the system's other backends to be gone (their counters are flushed at exit).
    for (let i = 0; settled && i < 100; i++) {
      const { rows } = await client.query<{ n: number }>(
        "select count(*)::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()",
        [database],
      );
      if ((rows[0]?.n ?? 0) === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await client.query("select pg_stat_clear_snapshot()");
    const { rows } = await client.query<{
      lsn: string;
      bytes: string;
      ins: string;
      upd: string;
      del: string;
      xact: string;
    }>(
      `select pg_current_wal_insert_lsn()::text as lsn, (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::text as bytes,
              tup_inserted::text as ins,
              tup_updated::text as upd, tup_deleted::text as del, xact_commit::text as xact
         from pg_stat_database where datname = $1`,
      [database],
    );
    const row = rows[0];
    if (!row) throw new Error(`readDbStats: no database ${database}`);
    return {
      lsn: row.lsn,
      walBytes: BigInt(row.bytes.split(".")[0] as string),
      inserted: Number(row.ins),
      updated: Number(row.upd),
      deleted: Number(row.del),
      commits: Number(row.xact),
    };
  } finally {
    await client.end();
  }
}

/** The difference per job. */
export function perJob(before: DbStats, after: DbStats, jobs: number): PerJob {
  return {
    walBytes: Number(after.walBytes - before.walBytes) / jobs,
    inserted: (after.inserted - before.inserted) / jobs,
    updated: (after.updated - before.updated) / jobs,
    deleted: (after.deleted - before.deleted) / jobs,
    transactions: (after.commits - before.commits) / jobs,
  };
}
