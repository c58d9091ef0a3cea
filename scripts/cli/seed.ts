import { createPool } from "../../db/client";
import { openDatabase } from "../../db/open";
import { seedDemo } from "../../lib/server/commands/seed-demo";
import { type Command, EXIT, helpOption, jsonOption, parseOptions, printJson } from "./shared";

export const seedCommand: Command = {
  name: "seed",
  summary: "Seed the demo data (once per database)",
  usage: `agent-ledger seed [--json]

Adds the demo's global retry policy and example tasks. Does nothing if the database was
seeded before.

Options:
  --json    print {"seeded": true|false}
  -h, --help`,
  run: async (argv) => {
    const opts = parseOptions(argv, { ...helpOption, ...jsonOption });
    const db = await openDatabase();
    const pool = createPool(db.appUrl, { max: 1, applicationName: "agent-ledger-seed" });
    try {
      const result = await seedDemo(pool);
      if (opts.json) printJson(result);
      else console.log(result.seeded ? "Seeded the demo." : "Already seeded; nothing to do.");
      return EXIT.ok;
    } finally {
      await pool.end();
      await db.release();
    }
  },
};
