// Applies db/migrations as the schema owner. drizzle's migrator takes no lock of its own, so
// two processes migrating at once are serialized here with an advisory lock.
import { fileURLToPath } from "node:url";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate as drizzleMigrate } from "drizzle-orm/node-postgres/migrator";
import { connectClient } from "./client";

export const MIGRATIONS_FOLDER = fileURLToPath(new URL("./migrations", import.meta.url));
const MIGRATION_LOCK = 7_331_001;

export type MigrateResult = { applied: number; total: number };

export async function migrateDatabase(ownerUrl: string): Promise<MigrateResult> {
  const client = await connectClient(ownerUrl);
  try {
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK]);
    const before = await countApplied(client);
    await drizzleMigrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
    const total = await countApplied(client);
    return { applied: total - before, total };
  } finally {
    await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => undefined);
    await client.end();
  }
}

async function countApplied(client: {
  query: (q: string) => Promise<{ rows: { n: number }[] }>;
}): Promise<number> {
  const exists = await client.query(
    "select count(*)::int as n from information_schema.tables where table_schema = 'drizzle' and table_name = '__drizzle_migrations'",
  );
  if ((exists.rows[0]?.n ?? 0) === 0) return 0;
  const rows = await client.query("select count(*)::int as n from drizzle.__drizzle_migrations");
  return rows.rows[0]?.n ?? 0;
}

/**
 * The package's `migrate`: brings the database at `databaseUrl` (a role that may create
 * tables) up to this version's schema. Safe from several processes at once.
 */
export async function migrate(options: { databaseUrl: string }): Promise<MigrateResult> {
  const url = options?.databaseUrl;
  if (typeof url !== "string" || !/^postgres(ql)?:\/\/.+/.test(url)) {
    throw new TypeError("migrate: databaseUrl must be a postgres:// or postgresql:// URL");
  }
  return migrateDatabase(url);
}
