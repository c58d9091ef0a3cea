// One task's ledger stream for the task screen, oldest first. A long stream shows its beginning
// (enqueue, the first decisions) and its latest end and says what it left out between; any
// part can be read in windows. Each entry carries its data (about 4 kB of page per entry), so
// showing thousands at once would make a page of megabytes.
import { and, asc, eq, gte, lt } from "drizzle-orm";
import { unionAll } from "drizzle-orm/pg-core";
import { z } from "zod";
import { ledgerEntries, ledgerStreams } from "../../../db/schema";
import { requireScope, type Viewer } from "../../domain/access";
import type { JsonValue } from "../../domain/json";
import { taskStream } from "../ledger/append-ledger";
import { type BulkRefDto, bulkIdOf, loadBulkRefs } from "./bulk-refs";
import type { DbReader } from "./db-reader";
import { payload, seesPayloads } from "./payloads";

export const TASK_TIMELINE_HEAD = 25;
export const TASK_TIMELINE_TAIL = 75;
export const TASK_TIMELINE_PAGE = 100;

/** The task page's address: `from` opens a window of the stream at that entry. */
export const timelineSearchSchema = z.object({
  from: z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, { error: "must be a positive whole number (an entry's seq)." })
    .transform(Number)
    .refine(Number.isSafeInteger, { error: "is too large to be an entry's seq." })
    .optional(),
});

export type TimelineSearch = z.output<typeof timelineSearchSchema>;

export type TimelineEntryDto = {
  id: number;
  seq: number;
  /** ISO 8601, UTC. */
  at: string;
  kind: string;
  actor: string;
  key: string | null;
  /**
   * Without `payloads:read`, HIDDEN_PAYLOAD: entries carry arguments, results, inputs and
   * prompts under many names, so the whole of `data` is hidden rather than a guessed part.
   */
  data: JsonValue;
  /** The bulk action this entry was part of (its per-task command ran for it); else null. */
  bulk: BulkRefDto | null;
};

/** The columns a timeline entry is read with (a task's stream, a bulk action's stream). */
export const TIMELINE_COLUMNS = {
  id: ledgerEntries.id,
  seq: ledgerEntries.seq,
  at: ledgerEntries.at,
  kind: ledgerEntries.kind,
  actor: ledgerEntries.actor,
  key: ledgerEntries.key,
  data: ledgerEntries.data,
};

type TimelineRow = {
  id: number;
  seq: number;
  at: Date;
  kind: string;
  actor: string;
  key: string | null;
  data: unknown;
};

/** One entry as a timeline shows it: the payload hidden without payloads:read. */
export function timelineEntry(
  e: TimelineRow,
  visible: boolean,
  bulk: BulkRefDto | null,
): TimelineEntryDto {
  return {
    id: e.id,
    seq: e.seq,
    at: e.at.toISOString(),
    kind: e.kind,
    actor: e.actor,
    key: e.key,
    data: payload(visible, e.data as JsonValue),
    bulk,
  };
}

export type TaskTimelineDto = {
  /**
   * Oldest first: the window asked for, or else every entry, or for a long stream the first
   * TASK_TIMELINE_HEAD and the last TASK_TIMELINE_TAIL.
   */
  entries: TimelineEntryDto[];
  /** Entries in the stream. */
  total: number;
  /** Entries the whole story left out, after the entry with seq `afterSeq`; else null. */
  gap: { afterSeq: number; count: number } | null;
  /** The window asked for (`from` up to TASK_TIMELINE_PAGE entries); null for the whole story. */
  window: { from: number } | null;
  /** The viewer lacks `payloads:read`: every entry's `data` is HIDDEN_PAYLOAD. */
  payloadsHidden: boolean;
};

/** Reads inside the caller's snapshot, so the count and the entries agree. */
export async function listTaskTimeline(
  db: DbReader,
  viewer: Viewer | null,
  taskId: string,
  search: TimelineSearch = {},
): Promise<TaskTimelineDto> {
  const visible = seesPayloads(requireScope(viewer, "ledger:read"));
  const stream = taskStream(taskId);
  const [head] = await db
    .select({ total: ledgerStreams.headSeq })
    .from(ledgerStreams)
    .where(eq(ledgerStreams.stream, stream));

  // Seqs run 1..head_seq without holes (the head row serializes appends), so the head says
  // how many entries the stream has and which seqs make up its ends.
  const total = head?.total ?? 0;
  const { window, gap } = shapeOf(total, search);

  const columns = TIMELINE_COLUMNS;
  const range = (from: number, below: number) =>
    db
      .select(columns)
      .from(ledgerEntries)
      .where(
        and(
          eq(ledgerEntries.stream, stream),
          gte(ledgerEntries.seq, from),
          lt(ledgerEntries.seq, below),
        ),
      )
      .orderBy(asc(ledgerEntries.seq))
      .limit(below - from);
  const rows =
    window !== null
      ? await range(window.from, window.from + TASK_TIMELINE_PAGE)
      : gap !== null
        ? // The two ends, each a range of ledger_entries_stream_seq_key: as one `seq <= a or
          // seq > b` the planner took the stream's whole length for the first end and read a
          // 20k-entry stream's ends with a parallel bitmap scan and a sort.
          await unionAll(
            range(1, TASK_TIMELINE_HEAD + 1),
            range(total - TASK_TIMELINE_TAIL + 1, total + 1),
          ).orderBy(asc(ledgerEntries.seq))
        : await db
            .select(columns)
            .from(ledgerEntries)
            .where(eq(ledgerEntries.stream, stream))
            .orderBy(asc(ledgerEntries.seq));
  return timelineOf(db, rows, { total, gap, window, payloadsHidden: !visible });
}

/** The window asked for, or the gap a long stream's whole story leaves out. */
function shapeOf(total: number, search: TimelineSearch): Pick<TaskTimelineDto, "window" | "gap"> {
  const window = search.from === undefined ? null : { from: search.from };
  const gap =
    window === null && total > TASK_TIMELINE_HEAD + TASK_TIMELINE_TAIL
      ? { afterSeq: TASK_TIMELINE_HEAD, count: total - TASK_TIMELINE_HEAD - TASK_TIMELINE_TAIL }
      : null;
  return { window, gap };
}

async function timelineOf(
  db: DbReader,
  rows: readonly TimelineRow[],
  shape: Omit<TaskTimelineDto, "entries">,
): Promise<TaskTimelineDto> {
  const visible = !shape.payloadsHidden;
  const bulks = await loadBulkRefs(
    db,
    rows.map((e) => e.data),
  );
  return {
    entries: rows.map((e) => timelineEntry(e, visible, bulks.get(bulkIdOf(e.data) ?? "") ?? null)),
    ...shape,
  };
}

/** The same from a whole stream in seq order, as an archive's files hold it. */
export async function archivedTaskTimeline(
  db: DbReader,
  viewer: Viewer | null,
  entries: readonly TimelineRow[],
  search: TimelineSearch = {},
): Promise<TaskTimelineDto> {
  const visible = seesPayloads(requireScope(viewer, "ledger:read"));
  const total = entries.length;
  const { window, gap } = shapeOf(total, search);
  const rows =
    window !== null
      ? entries.filter((e) => e.seq >= window.from && e.seq < window.from + TASK_TIMELINE_PAGE)
      : gap !== null
        ? entries.filter((e) => e.seq <= TASK_TIMELINE_HEAD || e.seq > total - TASK_TIMELINE_TAIL)
        : entries;
  return timelineOf(db, rows, { total, gap, window, payloadsHidden: !visible });
}
