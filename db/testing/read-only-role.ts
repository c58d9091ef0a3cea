// A login role that may only read one database: what tests point DATABASE_READ_URL at in place
// of a streaming replica. SELECT on every table and sessions read-only (as on a hot standby), no
// other privilege and nothing owned, so a write sent through it fails however it is attempted.
import { connectClient } from "../client";
import { withCredentials } from "../provision";

export type ReadOnlyRole = {
  role: string;
  /** The database's URL as this role. */
  url: string;
  /** Ends the role's sessions and drops it; call while the database still exists. */
  drop: () => Promise<void>;
};

const READER_PASSWORD = "agent-ledger-test-reader";

/**
 * Creates `<database>_reader` (roles are cluster-wide; the database name keeps it apart from
 * other runs on a shared TEST_DATABASE_URL server). `superUrl` is a superuser URL to that database.
 */
export async function createReadOnlyRole(
  superUrl: string,
  database: string,
): Promise<ReadOnlyRole> {
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`bad database name ${database}`);
  const role = `${database}_reader`;
  const client = await connectClient(superUrl);
  try {
    await client.query(`create role ${role} login password '${READER_PASSWORD}'`);
    await client.query(`grant connect on database ${database} to ${role}`);
    await client.query(`grant usage on schema public to ${role}`);
    await client.query(`grant select on all tables in schema public to ${role}`);
    await client.query(`alter role ${role} set default_transaction_read_only = on`);
  } finally {
    await client.end();
  }
  return {
    role,
    url: withCredentials(superUrl, role, READER_PASSWORD, database),
    drop: async () => {
      const c = await connectClient(superUrl);
      try {
        await c.query("select pg_terminate_backend(pid) from pg_stat_activity where usename = $1", [
          role,
        ]);
        // Revokes its grants in this database; it owns nothing, so nothing else goes.
        await c.query(`drop owned by ${role}`);
        await c.query(`drop role ${role}`);
      } finally {
        await c.end();
      }
    },
  };
}
