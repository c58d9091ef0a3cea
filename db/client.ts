// Connection pools. Every Pool and Client gets an error handler: an idle connection that the
// server drops (restart, failover) must not crash the process.
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "./schema";

export type Db = NodePgDatabase<typeof schema>;
/** The part of a pg client that hot-path SQL needs: a pool, a client, or a transaction's client. */
export type SqlClient = Pick<pg.ClientBase, "query">;

// Keep bigint counts and sums as JS numbers (they stay far below 2^53 here).
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));

export function createPool(
  connectionString: string,
  options: { max?: number; applicationName?: string } = {},
): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName ?? "agent-ledger",
    connectionTimeoutMillis: 10_000,
  });
  pool.on("error", (err) => {
    console.error(`[db] idle connection error: ${err.message}`);
  });
  return pool;
}

export async function connectClient(
  connectionString: string,
  timeoutMs = 10_000,
): Promise<pg.Client> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: timeoutMs });
  client.on("error", (err) => {
    console.error(`[db] connection error: ${err.message}`);
  });
  await client.connect();
  return client;
}

export function createDb(pool: pg.Pool): Db {
  return drizzle(pool, { schema });
}

/** Runs `fn` in one transaction on one pooled connection; rolls back if it throws. */
export async function withTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("begin");
    const result = await fn(client);
    await client.query("commit");
    return result;
  } catch (err) {
    await client.query("rollback").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
