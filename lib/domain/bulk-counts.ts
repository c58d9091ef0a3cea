// What a bulk action's counts say, in words that name what they count. Before a second reviewer
// confirms, nothing was acted on: the one count is the set that waits, worded for who reads it
// ("120 waiting for your confirmation"), never a row of outcomes that are all 0. Once it runs,
// each outcome and what is not acted on yet.
import type { BulkStatus, MemberOutcome } from "./bulk-actions";

export type BulkCounts = Record<MemberOutcome | "pending", number>;

/** A set of `pending` members none of which has an outcome yet. */
export function pendingCounts(pending: number): BulkCounts {
  return { pending, done: 0, waiting: 0, taken: 0, refused: 0, failed: 0, skipped: 0 };
}

/** Who reads the counts: may they confirm it, did they freeze it. */
export type BulkReader = { mayConfirm: boolean; froze: boolean };

export type BulkCountLine = {
  key: MemberOutcome | "pending" | "awaiting";
  text: string;
  n: number;
};

const OUTCOME_TEXT: Record<MemberOutcome, string> = {
  done: "done",
  waiting: "now wait for a second reviewer of their own",
  taken: "taken by another reviewer first",
  refused: "refused by the per-task checks",
  failed: "failed",
  skipped: "skipped, never acted on",
};

const fmt = (n: number) => n.toLocaleString("en-US");

/** "1 task", "1,200 tasks". */
export function tasksText(n: number): string {
  return `${fmt(n)} ${n === 1 ? "task" : "tasks"}`;
}

/** A bulk action's name wherever it is listed: "Bulk replay of 120 tasks". */
export function bulkTitle(action: string, memberCount: number): string {
  return `Bulk ${action} of ${tasksText(memberCount)}`;
}

/** The set waiting for a second reviewer, worded for `reader`. */
export function waitingText(memberCount: number, reader: BulkReader): string {
  const n = fmt(memberCount);
  if (reader.froze) return `${n} waiting for a second, different reviewer (you froze them)`;
  if (reader.mayConfirm) return `${n} waiting for your confirmation`;
  return `${n} waiting for a second reviewer`;
}

export function bulkCountLines(
  bulk: { status: BulkStatus; memberCount: number; counts: BulkCounts },
  reader: BulkReader,
): BulkCountLine[] {
  if (bulk.status === "awaiting_second") {
    return [{ key: "awaiting", text: waitingText(bulk.memberCount, reader), n: bulk.memberCount }];
  }
  const lines: BulkCountLine[] = (Object.keys(OUTCOME_TEXT) as MemberOutcome[]).map((o) => ({
    key: o,
    text: `${fmt(bulk.counts[o])} ${OUTCOME_TEXT[o]}`,
    n: bulk.counts[o],
  }));
  if (bulk.counts.pending > 0 || bulk.status === "running") {
    lines.push({
      key: "pending",
      text: `${fmt(bulk.counts.pending)} not acted on yet`,
      n: bulk.counts.pending,
    });
  }
  return lines;
}
