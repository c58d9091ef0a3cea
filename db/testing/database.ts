// Per-test-file database: `const db = await setUpTestDatabase()` at the top of a file gives a
// fresh migrated database and pools for the app role and the owner, dropped after the file.
import type pg from "pg";
import { afterAll, inject } from "vitest";
import { createDb, createPool, type Db } from "../client";
import { createTestDatabaseFrom, dropTestDatabase, type TestDatabaseUrls } from "./cluster";

export type TestDatabase = TestDatabaseUrls & {
  /** Pool connected as the application role (what the app and worker use). */
  pool: pg.Pool;
  /** Pool connected as the schema owner. */
  ownerPool: pg.Pool;
  /** Pool connected as a superuser (for tampering tests). */
  superPool: pg.Pool;
  db: Db;
  /** Runs `fn` as the superuser in a transaction that is always rolled back (tampering tests). */
  asSuperuserRolledBack: (fn: (client: pg.PoolClient) => Promise<void>) => Promise<void>;
};

export async function setUpTestDatabase(label = "test"): Promise<TestDatabase> {
  const cluster = inject("testCluster");
  const urls = await createTestDatabaseFrom(cluster, label);
  const pool = createPool(urls.appUrl, { max: 20 });
  const ownerPool = createPool(urls.ownerUrl, { max: 2 });
  const superPool = createPool(urls.superUrl, { max: 2 });
  afterAll(async () => {
    await Promise.all([pool.end(), ownerPool.end(), superPool.end()]);
    await dropTestDatabase(cluster, urls.name);
  });
  const asSuperuserRolledBack = async (fn: (client: pg.PoolClient) => Promise<void>) => {
    const client = await superPool.connect();
    try {
      await client.query("begin");
      await fn(client);
    } finally {
      await client.query("rollback");
      client.release();
    }
  };
  return { ...urls, pool, ownerPool, superPool, db: createDb(pool), asSuperuserRolledBack };
}
