import { readFile } from "node:fs/promises";
import { z } from "zod";
import { createPool, withTransaction } from "../../db/client";
import { openDatabase } from "../../db/open";
import { checkpointExportSchema } from "../../lib/domain/checkpoint";
import { describeIssues } from "../../lib/domain/zod-issues";
import { env } from "../../lib/env";
import { configuredPublicKey } from "../../lib/server/ledger/signing";
import { type ExpectedCheckpoint, verifyLedger } from "../../lib/server/ledger/verify-ledger";
import {
  type Command,
  EXIT,
  helpOption,
  jsonOption,
  parseOption,
  parseOptions,
  printJson,
  progressOption,
  startProgress,
  UsageError,
} from "./shared";
import { verifyArchiveCommand } from "./verify-archive";

/** `--expect`: a 64-hex digest, or the file `checkpoint --export` wrote. */
async function readExpected(arg: string): Promise<ExpectedCheckpoint> {
  if (/^[0-9a-f]{64}$/.test(arg)) return { digest: arg };
  let text: string;
  try {
    text = await readFile(arg, "utf8");
  } catch (err) {
    throw new UsageError(
      `--expect: ${arg} is neither a 64-hex-digit digest nor a readable file (${(err as Error).message})`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError(`--expect: ${arg} is not JSON (expected what checkpoint --export writes)`);
  }
  const parsed = checkpointExportSchema.safeParse(json);
  if (!parsed.success) {
    throw new UsageError(
      `--expect: ${arg} is not a checkpoint statement: ${describeIssues(parsed.error)}`,
    );
  }
  const { statement, signature } = parsed.data;
  return { digest: statement.digest, statement, signature };
}

export const verifyCommand: Command = {
  name: "verify",
  summary: "Recompute every hash chain (or check an archive); exit 1 naming the first broken entry",
  usage: `agent-ledger verify [--since-checkpoint] [--expect DIGEST|FILE] [--json] [--progress | --quiet]
agent-ledger verify --archive DIR [--json]

Recomputes every ledger stream's hash chain, checks each stream head and the latest
checkpoint, and reports the first broken entry of each stream.

--since-checkpoint starts each stream at the head the latest checkpoint recorded, once that
checkpoint's signature verifies with LEDGER_PUBLIC_KEY: the head entry is re-hashed and must
match, every entry after it is checked, streams created since are checked from their start.
What precedes the checkpoint is trusted to its signature (an old entry rewritten in place is
found by the full pass only, the default). Without a key, or when the signature does not
verify, it says so and checks every chain from its start.

With LEDGER_PUBLIC_KEY (or LEDGER_SIGNING_KEY) set, the latest checkpoint must be signed with
that key over its seq, time and digest, and be no older than LEDGER_CHECKPOINT_MAX_AGE_HOURS
(25 h): no checkpoint, an older one, or a bad signature fails.

--expect checks against a checkpoint kept outside the database: its digest, or the file
agent-ledger checkpoint --export wrote. The ledger must still hold that checkpoint, and every
stream head it recorded must still be there with the same hash.

--archive checks an archive that agent-ledger archive wrote: statement.json parses and its
signature verifies with LEDGER_PUBLIC_KEY (or the key of LEDGER_SIGNING_KEY; with neither, with
the key statement.json carries, and it says so), both files match the sizes and sha256 it
signed, every line parses, every stream's chain recomputes from genesis to its head, and the
heads digest and counts match. With DATABASE_URL set and reachable it also joins the archive to
the ledger: every stream is archived in this archive with the same head, no stream archived in
it is missing, the ledger.archived entry names this statement, and every entry equals the
database's where the database still holds it (a month archive detached holds none).

Options:
  --archive DIR       check the archive in DIR (see above) instead of the ledger
  --since-checkpoint  only what follows the latest signed checkpoint (see above)
  --expect X  a checkpoint digest (64 hex digits) or an exported statement file
  --json      print the full report as JSON
  --progress  progress on stderr even when it is not a terminal (it is shown on a terminal)
  --quiet     no progress
  -h, --help

Exit codes: 0 every chain verifies, 1 tampering or loss found (or the checkpoint a key requires
is missing, too old or badly signed), 2 could not run (bad options, an unreadable --expect).`,
  run: async (argv) => {
    const opts = parseOptions(argv, {
      ...helpOption,
      ...jsonOption,
      ...progressOption,
      quiet: { type: "boolean" },
      expect: { type: "string" },
      "since-checkpoint": { type: "boolean" },
      archive: { type: "string" },
    });
    if (opts.archive !== undefined) {
      if (opts.expect !== undefined || opts["since-checkpoint"]) {
        throw new UsageError("--archive: cannot be combined with --expect or --since-checkpoint");
      }
      const dir = parseOption(
        z.string().min(1, { error: "must name a directory" }),
        opts.archive,
        "--archive",
      );
      return verifyArchiveCommand(dir, opts.json === true);
    }
    const from = opts["since-checkpoint"] ? "checkpoint" : "start";
    const config = env();
    const publicKey = configuredPublicKey(config);
    const expect = opts.expect !== undefined ? await readExpected(opts.expect) : undefined;
    const db = await openDatabase();
    const pool = createPool(db.appUrl, { max: 1, applicationName: "agent-ledger-verify" });
    try {
      const show = { forced: opts.progress === true, quiet: opts.quiet === true };
      const counting = !show.quiet && (show.forced || process.stderr.isTTY === true);
      // Counted first, so progress can say how far along a full pass is (it reads every row anyway).
      const total =
        counting && from === "start"
          ? (await pool.query<{ n: number }>("select count(*)::int as n from ledger_entries"))
              .rows[0]?.n
          : undefined;
      const progress = startProgress({ verb: "verified", unit: "entries", total, ...show });
      // One snapshot (as the worker's pass): entries are read in batches and the stream heads
      // after them, and an append in between would read as entries missing.
      const report = await withTransaction(pool, async (client) => {
        await client.query("set transaction isolation level repeatable read, read only");
        return verifyLedger(client, {
          publicKey,
          maxCheckpointAgeHours: config.LEDGER_CHECKPOINT_MAX_AGE_HOURS,
          expect,
          from,
          onProgress: progress.update,
        });
      });
      progress.finish();
      if (opts.json) {
        printJson(report);
      } else {
        const cp = report.checkpoint;
        const signature = cp?.signed
          ? cp.signatureChecked
            ? "signature valid"
            : "signed (set LEDGER_PUBLIC_KEY to check)"
          : "unsigned";
        const cpLine = cp
          ? `latest checkpoint: system seq ${cp.seq} at ${cp.at} (${cp.ageHours.toFixed(1)} h ago), ${cp.streams} streams, ${signature}${cp.format === "legacy" ? ", legacy format" : ""}`
          : "no checkpoint (run agent-ledger checkpoint)";
        const ex = report.expected;
        if (report.ok) {
          console.log(
            report.mode === "checkpoint"
              ? `OK: ${report.entries} entries from the latest checkpoint on, in ${report.streams} streams, verify.`
              : `OK: ${report.entries} entries in ${report.streams} streams verify.`,
          );
        } else {
          console.log(`BROKEN: ${report.problems.length} problem(s) found.`);
          for (const p of report.problems) {
            const where = `${p.stream}${p.seq !== null ? ` seq ${p.seq}` : ""}${p.entryId !== null ? ` (entry id ${p.entryId})` : ""}`;
            console.log(`  ${where}: ${p.problem}: ${p.message}`);
          }
        }
        console.log(cpLine);
        if (report.mode === "checkpoint")
          console.log(
            "checked from the latest checkpoint's heads on; what precedes them is trusted to its signature",
          );
        if (ex) {
          console.log(
            `expected checkpoint ${ex.digest}: ${ex.found ? `found at system seq ${ex.seq}` : "not found"}`,
          );
        }
        for (const w of report.warnings) console.log(`warning: ${w}`);
      }
      return report.ok ? EXIT.ok : EXIT.problem;
    } finally {
      await pool.end();
      await db.release();
    }
  },
};
