import { createPool } from "../../db/client";
import { openDatabase } from "../../db/open";
import { env } from "../../lib/env";
import { configuredPublicKey } from "../../lib/server/ledger/signing";
import { verifyLedger } from "../../lib/server/ledger/verify-ledger";
import { type Command, EXIT, helpOption, jsonOption, parseOptions, printJson } from "./shared";

export const verifyCommand: Command = {
  name: "verify",
  summary: "Recompute every hash chain; exit 1 naming the first broken entry",
  usage: `agent-ledger verify [--json] [--quiet]

Recomputes every ledger stream's hash chain, checks each stream head and the latest
checkpoint (its signature too, when LEDGER_SIGNING_KEY or LEDGER_PUBLIC_KEY is set), and
reports the first broken entry of each stream.

Options:
  --json    print the full report as JSON
  --quiet   no progress on stderr
  -h, --help

Exit codes: 0 every chain verifies, 1 tampering or loss found, 2 could not run.`,
  run: async (argv) => {
    const opts = parseOptions(argv, { ...helpOption, ...jsonOption, quiet: { type: "boolean" } });
    const publicKey = configuredPublicKey(env());
    const db = await openDatabase();
    const pool = createPool(db.appUrl, { max: 1, applicationName: "agent-ledger-verify" });
    try {
      const progress = !opts.quiet && !opts.json && process.stderr.isTTY;
      const report = await verifyLedger(pool, {
        publicKey,
        onProgress: progress ? (n) => process.stderr.write(`\rverified ${n} entries…`) : undefined,
      });
      if (progress) process.stderr.write("\r\x1b[K");
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
