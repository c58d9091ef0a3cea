// The task page's Timeline card: where the task's time went, built from its ledger stream. Only
// the kinds the timeline reads, and of their data only the few fields it needs (attempt, tool,
// step, why…), so no payload leaves the database and a long stream stays a small read.

import { and, asc, eq, inArray, or, sql } from "drizzle-orm";
import { ledgerEntries, ledgerStreams, tasks } from "../../../db/schema";
import { requireScope, type Viewer } from "../../domain/access";
import { attemptStartOf } from "../../domain/attempt-start";
import { EFFECT_START_KEY } from "../../domain/effect-start";
import type { JsonValue } from "../../domain/json";
import { buildTaskTimeline } from "../../domain/task-timeline";
import {
  type TaskTimeline,
  TIMELINE_KINDS,
  type TimelineEntry,
} from "../../domain/task-timeline-vocabulary";
import { taskStream } from "../ledger/append-ledger";
import { carriesAttemptStart } from "../ledger/attempt-start-sql";
import { type ArchiveConfig, archiveConfig, archivedStream } from "./archived-entries";
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
  "attemptStarted",
] as const;

/** Of an effect's claim carried by the entry that ended it (effect-start.ts): when, not its args. */
const CLAIM_FIELDS = ["at", "lapsed"] as const;

const d = ledgerEntries.data.name;
const slimData = sql<JsonValue>`jsonb_strip_nulls(jsonb_build_object(${sql.raw(
  [
    ...DATA_FIELDS.map((f) => `'${f}', ${d}->'${f}'`),
    `'${EFFECT_START_KEY}', case when ${d} ? '${EFFECT_START_KEY}' then jsonb_build_object(${CLAIM_FIELDS.map(
      (f) => `'${f}', ${d}->'${EFFECT_START_KEY}'->'${f}'`,
    ).join(", ")}) end`,
  ].join(", "),
)}))`;

const isObject = (v: JsonValue | undefined): v is { [key: string]: JsonValue } =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** `fields` of `data` that are set, as jsonb_strip_nulls(jsonb_build_object(...)) keeps them. */
function pick(data: { [key: string]: JsonValue }, fields: readonly string[]) {
  const out: Record<string, JsonValue> = {};
  for (const f of fields) {
    const v = data[f];
    if (v !== undefined && v !== null) out[f] = v;
  }
  return out;
}

/** The data fields the timeline reads, from an entry the archive's files gave. */
function slim(data: JsonValue): JsonValue {
  if (!isObject(data)) return {};
  const out = pick(data, DATA_FIELDS);
  const claim = data[EFFECT_START_KEY];
  if (isObject(claim)) out[EFFECT_START_KEY] = pick(claim, CLAIM_FIELDS);
  return out;
}

/** An archived task whose entries the database no longer holds is read from `archives`. */
export async function getTaskTimeline(
  db: DbReader,
  viewer: Viewer | null,
  taskId: string,
  now: Date = new Date(),
  archives: ArchiveConfig = archiveConfig(),
): Promise<TaskTimelineViewDto | null> {
  requireScope(viewer, "tasks:read");
  const stream = taskStream(taskId);
  const [task] = await db
    .select({
      id: tasks.id,
      archivedIn: ledgerStreams.archivedIn,
      archivedAt: ledgerStreams.archivedAt,
      headSeq: ledgerStreams.headSeq,
      headHash: ledgerStreams.headHash,
    })
    .from(tasks)
    .leftJoin(ledgerStreams, eq(ledgerStreams.stream, stream))
    .where(eq(tasks.id, taskId));
  if (!task) return null;
  const { files } = await archivedStream(db, stream, task, archives);
  const rows = files
    ? files
        .filter(
          (e) =>
            (TIMELINE_KINDS as readonly string[]).includes(e.kind) || attemptStartOf(e) !== null,
        )
        .slice(0, TIMELINE_MAX_ENTRIES + 1)
        .map((e) => ({ seq: e.seq, at: e.at, kind: e.kind, key: e.key, data: slim(e.data) }))
    : await db
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
            eq(ledgerEntries.stream, stream),
            or(inArray(ledgerEntries.kind, [...TIMELINE_KINDS]), carriesAttemptStart),
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
