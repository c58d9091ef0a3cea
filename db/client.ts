// Connection pools. Every Pool and Client gets an error handler: a connection that the server
// drops (restart, failover), idle or checked out, must not crash the process. The query in
// flight fails with the error; the pool discards the dead client and the next query reconnects.
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import pg from "pg";
import { CommitInDoubtError, isConnectionError } from "./retry";
import * as schema from "./schema";

export type Db = NodePgDatabase<typeof schema>;
/** The part of a pg client that hot-path SQL needs: a pool, a client, or a transaction's client. */
export type SqlClient = Pick<pg.ClientBase, "query">;

/**
 * Where a pool or client reports a dropped connection. A pino logger fits (the long-running
 * processes pass `logger("db")`); db/ names only the shape, because it imports nothing of ours
 * but lib/domain and lib/env. Without one nothing is logged; the query in flight fails anyway.
 */
export type DbLog = {
  debug(fields: Record<string, unknown>, message: string): void;
};

const SILENT: DbLog = { debug: () => {} };

// Keep bigint counts and sums as JS numbers (they stay far below 2^53 here).
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));

export function createPool(
  connectionString: string,
  options: { max?: number; applicationName?: string; log?: DbLog } = {},
): pg.Pool {
  const name = options.applicationName ?? "agent-ledger";
  const log = options.log ?? SILENT;
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    application_name: name,
    connectionTimeoutMillis: 10_000,
    // A peer that vanished without closing (a failover, a partition) is noticed, not waited on.
    keepAlive: true,
  });
  // One line per dropped connection at debug: a restart drops them all at once, and the
  // component that needs the database (the worker loop, a request) reports the outage itself.
  const lost = (state: string) => (err: Error) =>
    log.debug(
      { pool: name, state, code: (err as { code?: string }).code, reason: err.message },
      "connection lost",
    );
  pool.on("error", lost("idle"));
  // pg-pool listens for errors only while a client is idle; a checked-out client (a transaction,
  // a LISTEN) that loses its server emits 'error' too, and unhandled that ends the process.
  pool.on("connect", (client) => {
    client.on("error", lost("in use"));
  });
  return pool;
}

export async function connectClient(
  connectionString: string,
  timeoutMs = 10_000,
): Promise<pg.Client> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: timeoutMs });
  // These are short-lived clients (migrations, provisioning, readiness probes): a dropped
  // connection is reported by the query that fails next. Unhandled, 'error' would end the process.
  client.on("error", () => {});
  await client.connect();
  return client;
}

export function createDb(pool: pg.Pool): Db {
  return drizzle(pool, { schema });
}

/**
 * Runs `fn` in one transaction on one pooled connection; rolls back if it throws. A connection
 * lost during COMMIT throws CommitInDoubtError (it may have committed); lost before it, the
 * server rolled the transaction back and the plain error is thrown.
 */
const rollbackHooks = new WeakMap<object, (() => void)[]>();

/**
 * Runs `undo` if the transaction `client` is in does not commit (or its COMMIT answer is lost):
 * for in-memory state a write inside it claimed (e.g. an attempt's start, folded into an entry).
 */
export function onRollback(client: object, undo: () => void): void {
  const hooks = rollbackHooks.get(client);
  if (hooks) hooks.push(undo);
  else rollbackHooks.set(client, [undo]);
}

export async function withTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
  /** Set in the BEGIN itself (one round trip, not two): e.g. "read committed". */
  isolation?: "read committed" | "repeatable read" | "serializable",
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(isolation ? `begin isolation level ${isolation}` : "begin");
    const result = await fn(client);
    try {
      await client.query("commit");
    } catch (err) {
      if (isConnectionError(err)) throw new CommitInDoubtError(err);
      throw err;
    }
    return result;
  } catch (err) {
    for (const undo of rollbackHooks.get(client) ?? []) undo();
    if (isConnectionError(err)) {
      broken = err instanceof Error ? err : new Error(String(err));
    } else {
      await client.query("rollback").catch(() => undefined);
    }
    throw err;
  } finally {
    rollbackHooks.delete(client);
    // A client whose connection died is discarded, not handed to the next caller.
    client.release(broken);
  }
}
