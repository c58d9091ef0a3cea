// The task page's Input section: the input as enqueued and each correction after it (fix the
// input and replay), oldest first, read from the task's own ledger entries, so the values shown
// are the ones the chain hashed (redacted where a path is sensitive), never the tasks row.
import { and, asc, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import { ledgerEntries } from "../../../db/schema";
import type { JsonValue } from "../../domain/json";
import { changedRows, type DiffRow, diffJson } from "../../domain/json-diff";
import type { DbReader } from "./db-reader";
import { payload } from "./payloads";

export type InputCorrectionDto = {
  /** The task.input_corrected entry's seq in the task's stream. */
  seq: number;
  at: string;
  /** The reviewer who made the correction. */
  proposedBy: string;
  /** The second reviewer who confirmed it (money could act); null when one was enough. */
  confirmedBy: string | null;
  fromStep: number | null;
  note: string | null;
  /** The input's leaves that differ, before → after, from the entry's own before and after. */
  rows: DiffRow[];
};

/**
 * Who corrected what is review history anyone who reads the task may know; the values are
 * payloads (HIDDEN_PAYLOAD, and no rows, without payloads:read).
 */
export type InputHistoryDto = {
  /** As the task.enqueued entry recorded it. */
  enqueued: JsonValue;
  corrections: InputCorrectionDto[];
};

/** Most corrections one task page lists (a task corrected more often is not a typo fixed). */
const CORRECTIONS_SHOWN = 50;

const correctionSchema = z.looseObject({
  before: z.json(),
  after: z.json(),
  fromStep: z.number().int().nullable().optional().catch(null),
  note: z.string().nullable().optional().catch(null),
  proposedBy: z.string().optional().catch(undefined),
  confirmedBy: z.string().nullable().optional().catch(undefined),
  // Entries before issue 19 name the first reviewer only here.
  twoPerson: z
    .looseObject({ requestedBy: z.string(), confirmedBy: z.string().optional() })
    .optional()
    .catch(undefined),
});
const enqueuedSchema = z.looseObject({ input: z.json() });

/** The kinds the history is read from. */
export const INPUT_KINDS = ["task.enqueued", "task.input_corrected"];

/** An entry the history is read from, oldest first. */
export type InputEntryRow = { seq: number; at: Date; kind: string; actor: string; data: unknown };

/** Read inside the task screen's snapshot: `current` is the task's input now. */
export async function readInputHistory(
  db: DbReader,
  stream: string,
  current: JsonValue,
  visible: boolean,
): Promise<InputHistoryDto> {
  const rows = await db
    .select({
      seq: ledgerEntries.seq,
      at: ledgerEntries.at,
      kind: ledgerEntries.kind,
      actor: ledgerEntries.actor,
      data: ledgerEntries.data,
    })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.stream, stream), inArray(ledgerEntries.kind, INPUT_KINDS)))
    .orderBy(asc(ledgerEntries.seq))
    .limit(INPUT_ENTRIES_READ);
  return inputHistoryOf(rows, current, visible);
}

/** At most this many entries are read: the enqueue and CORRECTIONS_SHOWN corrections. */
export const INPUT_ENTRIES_READ = CORRECTIONS_SHOWN + 1;

/** The history from the stream's INPUT_KINDS entries, oldest first (at most INPUT_ENTRIES_READ). */
export function inputHistoryOf(
  rows: readonly InputEntryRow[],
  current: JsonValue,
  visible: boolean,
): InputHistoryDto {
  let enqueued: JsonValue | undefined;
  let firstBefore: JsonValue | undefined;
  const corrections: InputCorrectionDto[] = [];
  for (const r of rows) {
    if (r.kind === "task.enqueued") {
      const d = enqueuedSchema.safeParse(r.data);
      if (d.success && enqueued === undefined) enqueued = d.data.input as JsonValue;
      continue;
    }
    const d = correctionSchema.safeParse(r.data);
    if (!d.success) continue;
    const before = d.data.before as JsonValue;
    firstBefore ??= before;
    const confirmedBy =
      d.data.confirmedBy !== undefined
        ? d.data.confirmedBy
        : d.data.twoPerson
          ? (d.data.twoPerson.confirmedBy ?? r.actor)
          : null;
    corrections.push({
      seq: r.seq,
      at: r.at.toISOString(),
      proposedBy: d.data.proposedBy ?? d.data.twoPerson?.requestedBy ?? r.actor,
      confirmedBy,
      fromStep: d.data.fromStep ?? null,
      note: d.data.note ?? null,
      rows: visible ? changedRows(diffJson(before, d.data.after as JsonValue)) : [],
    });
  }
  // A task written without an enqueue entry (a test's SQL) started from its first correction's before.
  return {
    enqueued: payload(visible, enqueued ?? firstBefore ?? current),
    corrections: corrections.slice(0, CORRECTIONS_SHOWN),
  };
}
