import { createPool } from "../../db/client";
import { openDatabase } from "../../db/open";
import { env } from "../../lib/env";
import { configuredPublicKey } from "../../lib/server/ledger/signing";
import { verifyLedger } from "../../lib/server/ledger/verify-ledger";
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

export const verifyCommand: Command = {
  name: "verify",
  summary: "Recompute every hash chain; exit 1 naming the first broken entry",
  usage: `agent-ledger verify [--json] [--progress | --quiet]

Recomputes every ledger stream's hash chain, checks each stream head and the latest
checkpoint (its signature too, when LEDGER_SIGNING_KEY or LEDGER_PUBLIC_KEY is set), and
reports the first broken entry of each stream.

Options:
  --json      print the full report as JSON
  --progress  progress on stderr even when it is not a terminal (it is shown on a terminal)
  --quiet     no progress
  -h, --help

Exit codes: 0 every chain verifies, 1 tampering or loss found, 2 could not run.`,
  run: async (argv) => {
    const opts = parseOptions(argv, {
      ...helpOption,
      ...jsonOption,
      ...progressOption,
      quiet: { type: "boolean" },
    });
    const publicKey = configuredPublicKey(env());
    const db = await openDatabase();
    const pool = createPool(db.appUrl, { max: 1, applicationName: "agent-ledger-verify" });
    try {
      const show = { forced: opts.progress === true, quiet: opts.quiet === true };
      const counting = !show.quiet && (show.forced || process.stderr.isTTY === true);
      // Counted first, so progress can say how far along it is; verify reads every row anyway.
      const total = counting
        ? (await pool.query<{ n: number }>("select count(*)::int as n from ledger_entries")).rows[0]
            ?.n
        : undefined;
      const progress = startProgress({ verb: "verified", unit: "entries", total, ...show });
      const report = await verifyLedger(pool, { publicKey, onProgress: progress.update });
      progress.finish();
      if (opts.json) {
        printJson(report);
      } else {
        const cp = report.checkpoint;
        const cpLine = cp
          ? `latest checkpoint: system seq ${cp.seq} at ${cp.at}, ${cp.streams} streams, ${cp.signed ? (cp.signatureChecked ? "signature valid" : "signed (set LEDGER_PUBLIC_KEY to check)") : "unsigned"}`
          : "no checkpoint yet (run agent-ledger checkpoint)";
        if (report.ok) {
          console.log(`OK: ${report.entries} entries in ${report.streams} streams verify.`);
          console.log(cpLine);
        } else {
          console.log(`BROKEN: ${report.problems.length} stream(s) fail verification.`);
          for (const p of report.problems) {
            const where = `${p.stream}${p.seq !== null ? ` seq ${p.seq}` : ""}${p.entryId !== null ? ` (entry id ${p.entryId})` : ""}`;
            console.log(`  ${where}: ${p.problem}: ${p.message}`);
          }
          console.log(cpLine);
        }
      }
      return report.ok ? EXIT.ok : EXIT.problem;
    } finally {
      await pool.end();
      await db.release();
    }
  },
};
