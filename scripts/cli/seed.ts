import { createPool } from "../../db/client";
import { openDatabase } from "../../db/open";
import { seedDemo } from "../../lib/server/commands/seed-demo";
import {
  type Command,
  EXIT,
  helpOption,
  jsonOption,
  parseOptions,
  printJson,
  progressOption,
  startProgress,
} from "./shared";

export const seedCommand: Command = {
  name: "seed",
  summary: "Seed the demo data (once per database)",
  usage: `agent-ledger seed [--json] [--progress]

Adds the demo's global retry policy and example tasks, in one transaction. Does nothing if
the database was seeded before.

Options:
  --json      print {"seeded": true|false}
  --progress  progress on stderr even when it is not a terminal (it is shown on a terminal)
  -h, --help

Exit codes: 0 seeded (or seeded before), 2 could not run (no database).`,
  run: async (argv) => {
    const opts = parseOptions(argv, { ...helpOption, ...jsonOption, ...progressOption });
    const db = await openDatabase();
    const pool = createPool(db.appUrl, { max: 1, applicationName: "agent-ledger-seed" });
    try {
      // seedDemo is one transaction with no steps to count: say when it starts and ends.
      const progress = startProgress({
        verb: "seeded",
        unit: "",
        forced: opts.progress === true,
      });
      const started = Date.now();
      progress.note("seeding the demo (one transaction)…");
      const result = await seedDemo(pool);
      progress.note(
        `${result.seeded ? "seeded" : "already seeded"} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
      if (opts.json) printJson(result);
      else console.log(result.seeded ? "Seeded the demo." : "Already seeded; nothing to do.");
      return EXIT.ok;
    } finally {
      await pool.end();
      await db.release();
    }
  },
};
