// The SQL side of attempt-start.ts: which entries start an attempt, in either form (an older
// attempt.started entry, or `attemptStarted` folded into the attempt's first entry).
import { or, type SQL, sql } from "drizzle-orm";
import { ledgerEntries } from "../../../db/schema";
import { ATTEMPT_START_KEY, ATTEMPT_STARTED_KIND } from "../../domain/attempt-start";

/** For raw SQL over ledger_entries (alias `e` or none, as `prefix` says). */
export function startsAttemptText(prefix = ""): string {
  return `(${prefix}kind = '${ATTEMPT_STARTED_KIND}' or ${prefix}data ? '${ATTEMPT_START_KEY}')`;
}

/**
 * For raw SQL: the entry carries the start of the attempt claimed at `claimedAt` (an SQL
 * timestamptz expression). The claim's time is stored to the millisecond in the entry's JSON,
 * so it is matched within 2 ms rather than by equality.
 */
export function carriesStartClaimedAtText(prefix: string, claimedAt: string): string {
  return `abs(extract(epoch from (${prefix}data->'${ATTEMPT_START_KEY}'->>'at')::timestamptz - ${claimedAt})) < 0.002`;
}

/** An entry that carries an attempt's start folded in (drizzle). */
export const carriesAttemptStart: SQL = sql`${ledgerEntries.data} ? ${sql.raw(`'${ATTEMPT_START_KEY}'`)}`;

/** An entry that starts an attempt, in either form (drizzle). */
export const startsAttempt = or(
  sql`${ledgerEntries.kind} = ${sql.raw(`'${ATTEMPT_STARTED_KIND}'`)}`,
  carriesAttemptStart,
) as SQL;
