// The task page's Attempts section: each attempt as its attempt.started entry recorded it (when,
// on which worker, and which version of the agent's code ran it), with a mark where the version
// differs from the attempt before: "the retry ran other code" is often the answer to "why did it
// behave differently the second time?".
import { and, desc, eq } from "drizzle-orm";
import { z } from "zod";
import { ledgerEntries } from "../../../db/schema";
import type { DbReader } from "./db-reader";

export type AttemptDto = {
  /** The task.attempts count it started as (a hand-back starts the same number again). */
  attempt: number;
  startedAt: string;
  /** The worker that ran it, as the ledger names it (`worker:<id>`). */
  worker: string;
  /** The agent code's version; null for attempts started by workers from before versions. */
  version: string | null;
  /** The version of the attempt before, when both are known and differ; null otherwise. */
  versionChangedFrom: string | null;
};

/** The latest attempts listed; a task retried more often than this shows its last ones. */
export const ATTEMPTS_SHOWN = 100;

const startedSchema = z.looseObject({
  attempt: z.number().int().catch(0),
  version: z.string().optional().catch(undefined),
});

/** Read inside the task screen's snapshot, oldest first. */
export async function readAttempts(db: DbReader, stream: string): Promise<AttemptDto[]> {
  const rows = await db
    .select({ at: ledgerEntries.at, actor: ledgerEntries.actor, data: ledgerEntries.data })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.stream, stream), eq(ledgerEntries.kind, "attempt.started")))
    .orderBy(desc(ledgerEntries.seq))
    .limit(ATTEMPTS_SHOWN);
  return attemptsOf(rows);
}

/** The attempts from the stream's latest attempt.started entries, newest first (at most ATTEMPTS_SHOWN). */
export function attemptsOf(
  rows: readonly { at: Date; actor: string; data: unknown }[],
): AttemptDto[] {
  let before: string | null = null;
  return [...rows].reverse().map((r) => {
    const data = startedSchema.safeParse(r.data);
    const version = data.success ? (data.data.version ?? null) : null;
    const changed = version !== null && before !== null && version !== before;
    const dto: AttemptDto = {
      attempt: data.success ? data.data.attempt : 0,
      startedAt: r.at.toISOString(),
      worker: r.actor,
      version,
      versionChangedFrom: changed ? before : null,
    };
    if (version !== null) before = version;
    return dto;
  });
}
