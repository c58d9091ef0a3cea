// agent-ledger/testing's throwaway database: a fresh database on the team's test server,
// migrated to this version's schema, dropped when they are done with it.
import { randomBytes } from "node:crypto";
import type pg from "pg";
import { connectClient, createPool } from "../../db/client";
import { migrateDatabase } from "../../db/migrate";
import { dropDatabase } from "../../db/provision";

export type TestDatabase = {
  /** The throwaway database's URL (same role as the server URL). */
  url: string;
  name: string;
  pool: pg.Pool;
  /** Closes the pool and drops the database. */
  drop(): Promise<void>;
};

const POSTGRES_URL = /^postgres(ql)?:\/\/.+/;

/**
 * `serverUrl`: a role that may CREATE DATABASE on the test server; default TEST_DATABASE_URL,
 * then DATABASE_URL. The database it names is only connected to, never changed.
 */
export async function createTestDatabase(
  options: { serverUrl?: string } = {},
): Promise<TestDatabase> {
  const serverUrl =
    options.serverUrl ?? process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? "";
  if (!POSTGRES_URL.test(serverUrl)) {
    throw new TypeError(
      "createTestDatabase: give serverUrl, or set TEST_DATABASE_URL or DATABASE_URL, to a postgres:// URL of a role that may create databases",
    );
  }
  const name = `agent_ledger_test_${randomBytes(5).toString("hex")}`;
  const client = await connectClient(serverUrl);
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const at = new URL(serverUrl);
  at.pathname = `/${name}`;
  const url = at.toString();
  try {
    await migrateDatabase(url);
  } catch (err) {
    await dropDatabase(serverUrl, name).catch(() => undefined);
    throw err;
  }
  const pool = createPool(url, { max: 10, applicationName: "agent-ledger-test" });
  let dropped: Promise<void> | undefined;
  return {
    url,
    name,
    pool,
    drop() {
      dropped ??= (async () => {
        await pool.end().catch(() => undefined);
        await dropDatabase(serverUrl, name);
      })();
      return dropped;
    },
  };
}
