// Where this checkout lives, and how a process outside the web server reaches its database:
// DATABASE_URL when set, otherwise the embedded cluster in ./.data (started if not running).

import path from "node:path";
import { fileURLToPath } from "node:url";
import { env } from "../lib/env";
import { ensureEmbeddedDatabase } from "./embedded";
import { type MigrateResult, migrateDatabase } from "./migrate";

export const PROJECT_ROOT = fileURLToPath(new URL("../", import.meta.url));

export function dataDir(): string {
  return path.resolve(PROJECT_ROOT, env().AGENT_LEDGER_DATA_DIR ?? ".data");
}

export type DatabaseTarget = {
  appUrl: string;
  ownerUrl: string;
  embedded: boolean;
  /** What opening the embedded database migrated (it migrates on the way); absent for DATABASE_URL. */
  migrated?: MigrateResult;
  release: () => Promise<void>;
};

/** Resolves the database; the embedded one is migrated on the way (cheap when up to date). */
export async function openDatabase(): Promise<DatabaseTarget> {
  const { DATABASE_URL, DATABASE_OWNER_URL } = env();
  if (DATABASE_URL) {
    return {
      appUrl: DATABASE_URL,
      ownerUrl: DATABASE_OWNER_URL ?? DATABASE_URL,
      embedded: false,
      release: async () => {},
    };
  }
  const handle = await ensureEmbeddedDatabase(dataDir());
  let migrated: MigrateResult;
  try {
    migrated = await migrateDatabase(handle.ownerUrl);
  } catch (err) {
    await handle.release();
    throw err;
  }
  return {
    appUrl: handle.appUrl,
    ownerUrl: handle.ownerUrl,
    embedded: true,
    migrated,
    release: handle.release,
  };
}
