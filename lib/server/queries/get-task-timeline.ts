// The task page's Timeline card: where the task's time went, built from its ledger stream. Only
// the kinds the timeline reads, and of their data only the few fields it needs (attempt, tool,
// step, why…), so no payload leaves the database and a long stream stays a small read.
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { ledgerEntries, tasks } from "../../../db/schema";
import { requireScope, type Viewer } from "../../domain/access";
import type { JsonValue } from "../../domain/json";
import {
  buildTaskTimeline,
  type TaskTimeline,
  TIMELINE_KINDS,
  type TimelineEntry,
} from "../../domain/task-timeline";
import { taskStream } from "../ledger/append-ledger";
import type { DbReader } from "./db-reader";

/** A task retried or rate limited thousands of times shows its first entries up to here. */
export const TIMELINE_MAX_ENTRIES = 2_000;

export type TaskTimelineViewDto = TaskTimeline & {
  /** ISO 8601: the instant open segments run up to. */
  asOf: string;
  /** Timeline entries read (at most TIMELINE_MAX_ENTRIES). */
  entriesRead: number;
  /**
   * More entries than were read: the bar stops at the last one read (`asOf`), and the rest is
   * in the ledger.
   */
  truncated: boolean;
};

/** The fields of an entry's data the timeline reads; anything else (payloads) stays behind. */
const DATA_FIELDS = [
  "attempt",
  "tool",
  "step",
  "kind",
  "name",
  "model",
  "why",
  "waitMs",
  "handedBack",
  "reason",
  "resumed",
  "from",
  "startedAt",
] as const;

const slimData = sql<JsonValue>`jsonb_strip_nulls(jsonb_build_object(${sql.raw(
  DATA_FIELDS.map((f) => `'${f}', ${ledgerEntries.data.name}->'${f}'`).join(", "),
)}))`;

export async function getTaskTimeline(
  db: DbReader,
  viewer: Viewer | null,
  taskId: string,
  now: Date = new Date(),
): Promise<TaskTimelineViewDto | null> {
  requireScope(viewer, "tasks:read");
  const [task] = await db.select({ id: tasks.id }).from(tasks).where(eq(tasks.id, taskId));
  if (!task) return null;
  const rows = await db
    .select({
      seq: ledgerEntries.seq,
      at: ledgerEntries.at,
      kind: ledgerEntries.kind,
      key: ledgerEntries.key,
      data: slimData,
    })
    .from(ledgerEntries)
    .where(
      and(
        eq(ledgerEntries.stream, taskStream(taskId)),
        inArray(ledgerEntries.kind, [...TIMELINE_KINDS]),
      ),
    )
    .orderBy(asc(ledgerEntries.seq))
    .limit(TIMELINE_MAX_ENTRIES + 1);
  const truncated = rows.length > TIMELINE_MAX_ENTRIES;
  const read = rows.slice(0, TIMELINE_MAX_ENTRIES);
  const entries: TimelineEntry[] = read.map((r) => ({
    seq: r.seq,
    at: r.at.toISOString(),
    kind: r.kind,
    key: r.key,
    data: r.data,
  }));
  const asOf = truncated ? (entries.at(-1)?.at ?? now.toISOString()) : now.toISOString();
  return {
    ...buildTaskTimeline(entries, asOf),
    asOf,
    entriesRead: entries.length,
    truncated,
  };
}
