import { migrateDatabase } from "../../db/migrate";
import { openDatabase } from "../../db/open";
import { type Command, EXIT, helpOption, jsonOption, parseOptions, printJson } from "./shared";

export const migrateCommand: Command = {
  name: "migrate",
  summary: "Apply database migrations (as DATABASE_OWNER_URL, else DATABASE_URL)",
  usage: `agent-ledger migrate [--json]

Applies the migrations in db/migrations that the database has not seen yet. Safe to run from
several places at once: migrations are serialized by an advisory lock.

Options:
  --json    print {"applied": N, "total": N}
  -h, --help

Exit codes: 0 up to date, 2 could not run (no database, a migration failed).`,
  run: async (argv) => {
    const opts = parseOptions(argv, { ...helpOption, ...jsonOption });
    const db = await openDatabase();
    try {
      // The embedded database is migrated as it opens: report that pass, not a second one of 0.
      const result = db.migrated ?? (await migrateDatabase(db.ownerUrl));
      if (opts.json) printJson(result);
      else console.log(`Applied ${result.applied} migration(s); ${result.total} in total.`);
      return EXIT.ok;
    } finally {
      await db.release();
    }
  },
};
