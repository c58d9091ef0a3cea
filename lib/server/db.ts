// The web process's database handles. `npm start` passes DATABASE_URL to the web server (the
// embedded database's app-role URL by default), so here it is required. DATABASE_READ_URL, when
// set, is a second pool (a replica) that only reads shaped for a screen go through.
import type pg from "pg";
import { createDb, createPool, type Db } from "../../db/client";
import { env } from "../env";
import { logger } from "../log";

export { isConnectionError } from "../../db/retry";

const holder = globalThis as typeof globalThis & {
  __agentLedgerPool?: pg.Pool;
  __agentLedgerDb?: Db;
  __agentLedgerReadPool?: pg.Pool;
  __agentLedgerReadDb?: Db;
};

export function getPool(): pg.Pool {
  if (!holder.__agentLedgerPool) {
    const { DATABASE_URL, DATABASE_POOL_MAX } = env();
    if (!DATABASE_URL) {
      throw new Error(
        "DATABASE_URL is not set. Start the app with `npm start` (it runs the embedded database) or set DATABASE_URL.",
      );
    }
    holder.__agentLedgerPool = createPool(DATABASE_URL, {
      max: DATABASE_POOL_MAX,
      applicationName: "agent-ledger-web",
      log: logger("db"),
    });
  }
  return holder.__agentLedgerPool;
}

export function getDb(): Db {
  holder.__agentLedgerDb ??= createDb(getPool());
  return holder.__agentLedgerDb;
}

export function readReplicaConfigured(): boolean {
  return env().DATABASE_READ_URL !== undefined;
}

/**
 * The replica's pool, or the primary's when DATABASE_READ_URL is unset. Only reads go here:
 * a replica refuses writes, and it lags, so nothing that must see a write it just made may use it.
 */
export function getReadPool(): pg.Pool {
  const { DATABASE_READ_URL, DATABASE_POOL_MAX } = env();
  if (!DATABASE_READ_URL) return getPool();
  holder.__agentLedgerReadPool ??= createPool(DATABASE_READ_URL, {
    max: DATABASE_POOL_MAX,
    applicationName: "agent-ledger-web-read",
    log: logger("db-read"),
  });
  return holder.__agentLedgerReadPool;
}

export function getReadDb(): Db {
  if (!readReplicaConfigured()) return getDb();
  holder.__agentLedgerReadDb ??= createDb(getReadPool());
  return holder.__agentLedgerReadDb;
}

/** What a screen reads through: both handles on one side, so a screen never mixes the two. */
export type Readers = { db: Db; pool: pg.Pool };

/**
 * Set by every server action (lib/auth/read-your-writes.ts) while a replica is configured: for
 * this long afterwards that person's screens read the primary, so the page an action refreshes
 * shows what the action did rather than what a lagging replica still holds.
 */
export const WROTE_COOKIE = "agent-ledger.wrote";
export const READ_YOUR_WRITES_SECONDS = 10;

const WROTE = new RegExp(`(?:^|;\\s*)${WROTE_COOKIE.replace(".", "\\.")}=`);

/** Whether a request's Cookie header carries WROTE_COOKIE. */
export function wroteRecently(cookieHeader: string | null): boolean {
  return cookieHeader !== null && WROTE.test(cookieHeader);
}

/** Where a screen reads: the replica, unless there is none or the person just wrote. */
export function screenReaders(afterOwnWrite: boolean): Readers {
  if (!readReplicaConfigured() || afterOwnWrite) return { db: getDb(), pool: getPool() };
  return { db: getReadDb(), pool: getReadPool() };
}
