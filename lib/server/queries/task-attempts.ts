// The task page's Attempts section: each attempt as its start recorded it (when,
// on which worker, and which version of the agent's code ran it), with a mark where the version
// differs from the attempt before: "the retry ran other code" is often the answer to "why did it
// behave differently the second time?".
import { and, desc, eq } from "drizzle-orm";
import { ledgerEntries } from "../../../db/schema";
import { type AttemptStart, attemptStartOf } from "../../domain/attempt-start";
import { startsAttempt } from "../ledger/attempt-start-sql";
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

/** Read inside the task screen's snapshot, oldest first. */
export async function readAttempts(db: DbReader, stream: string): Promise<AttemptDto[]> {
  const rows = await db
    .select({
      kind: ledgerEntries.kind,
      at: ledgerEntries.at,
      actor: ledgerEntries.actor,
      data: ledgerEntries.data,
    })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.stream, stream), startsAttempt))
    .orderBy(desc(ledgerEntries.seq))
    .limit(ATTEMPTS_SHOWN);
  return attemptsOf(rows);
}

/**
 * The attempts from the stream's latest entries that start one (an attempt.started entry, or
 * the attempt's first entry with its start folded in), newest first (at most ATTEMPTS_SHOWN).
 */
export function attemptsOf(
  rows: readonly { kind: string; at: Date; actor: string; data: unknown }[],
): AttemptDto[] {
  let before: string | null = null;
  let last: AttemptStart | null = null;
  const out: AttemptDto[] = [];
  for (const r of [...rows].reverse()) {
    const start = attemptStartOf(r);
    // A start carried twice (two parallel first appends of one attempt) is one attempt.
    if (!start || (last && last.attempt === start.attempt && last.at === start.at)) continue;
    last = start;
    const version = start.version;
    const changed = version !== null && before !== null && version !== before;
    out.push({
      attempt: start.attempt ?? 0,
      startedAt: new Date(start.at).toISOString(),
      worker: start.actor,
      version,
      versionChangedFrom: changed ? before : null,
    });
    if (version !== null) before = version;
  }
  return out;
}
