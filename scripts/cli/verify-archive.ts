// verify --archive DIR: an archive's files alone, and joined to the ledger when DATABASE_URL
// names a database that answers (an auditor may hold the files and no database at all).
import { createPool } from "../../db/client";
import { env } from "../../lib/env";
import { verifyArchive } from "../../lib/server/ledger/archive-verify";
import { configuredPublicKey } from "../../lib/server/ledger/signing";
import { EXIT, printJson } from "./shared";

export async function verifyArchiveCommand(dir: string, json: boolean): Promise<number> {
  const config = env();
  const publicKey = configuredPublicKey(config);
  const warnings: string[] = [];
  const pool = config.DATABASE_URL
    ? createPool(config.DATABASE_URL, { max: 2, applicationName: "agent-ledger-verify-archive" })
    : undefined;
  try {
    let joined = pool;
    if (pool) {
      try {
        await pool.query("select 1");
      } catch (err) {
        warnings.push(
          `the database at DATABASE_URL did not answer (${(err as Error).message}): the files were checked alone`,
        );
        joined = undefined;
      }
    } else {
      warnings.push(
        "DATABASE_URL is not set: the files were checked alone, not against the ledger",
      );
    }
    const report = await verifyArchive(dir, { publicKey, pool: joined });
    report.warnings.push(...warnings);
    if (json) {
      printJson({ dir, ...report });
      return report.ok ? EXIT.ok : EXIT.problem;
    }
    const id = report.archiveId ?? "(unreadable statement)";
    const against = report.joined ? "joined to the ledger" : "files alone";
    if (report.ok) {
      const key = report.key === "configured" ? "the configured key" : "the key it carries";
      console.log(
        `OK: archive ${id} in ${dir}: ${report.entries} entries in ${report.streams} streams verify (${against}; signature valid with ${key}).`,
      );
    } else {
      console.log(
        `BROKEN: archive ${id} in ${dir}: ${report.problems.length} problem(s) found (${against}).`,
      );
      for (const p of report.problems) {
        const where = p.stream ? `${p.stream}${p.seq !== null ? ` seq ${p.seq}` : ""}: ` : "";
        console.log(`  ${where}${p.kind}: ${p.message}`);
      }
    }
    for (const w of report.warnings) console.log(`warning: ${w}`);
    return report.ok ? EXIT.ok : EXIT.problem;
  } finally {
    await pool?.end();
  }
}
