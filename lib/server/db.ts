// The web process's database handle. `npm start` passes DATABASE_URL to the web server (the
// embedded database's app-role URL by default), so here it is required.
import type pg from "pg";
import { createDb, createPool, type Db } from "../../db/client";
import { env } from "../env";
import { logger } from "../log";

export { isConnectionError } from "../../db/retry";

const holder = globalThis as typeof globalThis & {
  __agentLedgerPool?: pg.Pool;
  __agentLedgerDb?: Db;
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
