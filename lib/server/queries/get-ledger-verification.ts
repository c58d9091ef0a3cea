// What the /ledger chain badge says: the latest periodic verify the workers recorded
// (worker/ledger-verify.ts), and, when the chain was found broken, what failed.
import { eq } from "drizzle-orm";
import { z } from "zod";
import { ledgerVerifications } from "../../../db/schema";
import { requireScope, type Viewer } from "../../domain/access";
import type { DbReader } from "./db-reader";

const problemSchema = z.object({
  stream: z.string(),
  seq: z.number().nullable(),
  entryId: z.number().nullable(),
  problem: z.string(),
  message: z.string(),
});

export type LedgerVerificationDto =
  | { status: "never" }
  | {
      status: "ok" | "failed";
      throughId: number;
      /** ISO 8601: when entry `throughId` was appended. */
      throughAt: string | null;
      verifiedAt: string;
      mode: "full" | "checkpoint" | "incremental";
      fullAt: string | null;
      failedAt: string | null;
      problems: z.output<typeof problemSchema>[];
    };

export async function getLedgerVerification(
  db: DbReader,
  viewer: Viewer | null,
): Promise<LedgerVerificationDto> {
  requireScope(viewer, "ledger:read");
  const [row] = await db
    .select()
    .from(ledgerVerifications)
    .where(eq(ledgerVerifications.name, "chain"))
    .limit(1);
  if (!row) return { status: "never" };
  // Written by the worker; parsed anyway, so a hand-edited row cannot break the page.
  const problems = z.array(problemSchema).safeParse(row.problems);
  return {
    status: row.ok ? "ok" : "failed",
    throughId: row.throughId,
    throughAt: row.throughAt?.toISOString() ?? null,
    verifiedAt: row.verifiedAt.toISOString(),
    mode: row.mode === "full" || row.mode === "checkpoint" ? row.mode : "incremental",
    fullAt: row.fullAt?.toISOString() ?? null,
    failedAt: row.failedAt?.toISOString() ?? null,
    problems: problems.success ? problems.data : [],
  };
}
