// Where the scale scripts work: DATABASE_URL (and DATABASE_OWNER_URL) when set, otherwise an
// embedded cluster of its own in .data/scale, apart from the demo database in .data, so a
// load of millions of rows never lands in the database `npm start` uses.
import path from "node:path";
import { ensureEmbeddedDatabase } from "../../db/embedded";
import { migrateDatabase } from "../../db/migrate";
import { PROJECT_ROOT } from "../../db/open";
import { env } from "../../lib/env";

export const DEFAULT_SCALE_DIR = path.join(PROJECT_ROOT, ".data", "scale");

export type ScaleTarget = {
  appUrl: string;
  ownerUrl: string;
  /** Superuser, embedded only: server settings for the load. */
  superUrl: string | null;
  /** Migrations applied on the way (the measure's "after" picks up new indexes this way). */
  applied: number;
  release: () => Promise<void>;
};

export async function openScaleTarget(
  dataDir = DEFAULT_SCALE_DIR,
  opts: { migrate?: boolean } = {},
): Promise<ScaleTarget> {
  const { DATABASE_URL, DATABASE_OWNER_URL } = env();
  const migrate = async (url: string) =>
    opts.migrate === false ? { applied: 0 } : migrateDatabase(url);
  if (DATABASE_URL) {
    const ownerUrl = DATABASE_OWNER_URL ?? DATABASE_URL;
    const { applied } = await migrate(ownerUrl);
    return { appUrl: DATABASE_URL, ownerUrl, superUrl: null, applied, release: async () => {} };
  }
  const handle = await ensureEmbeddedDatabase(dataDir);
  try {
    const { applied } = await migrate(handle.ownerUrl);
    return { ...handle, applied };
  } catch (err) {
    await handle.release();
    throw err;
  }
}
