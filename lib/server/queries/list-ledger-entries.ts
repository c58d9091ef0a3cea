// The ledger screen: newest entries first, keyset-paginated by id, so a page never shifts or
// repeats rows while new entries arrive. `data` stays out: screens show it escaped, per entry.
import { and, desc, eq, lt } from "drizzle-orm";
import { z } from "zod";
import { ledgerEntries } from "../../../db/schema";
import { requireScope, type Viewer } from "../../auth/permissions";
import type { DbReader } from "./db-reader";

export const LEDGER_PAGE_SIZE = 50;

export type LedgerEntryDto = {
  id: number;
  stream: string;
  seq: number;
  /** ISO 8601, UTC. */
  at: string;
  kind: string;
  actor: string;
  taskId: string | null;
  key: string | null;
};

export type LedgerPageDto = {
  entries: LedgerEntryDto[];
  /** Pass as `before` to read the next older page; null on the oldest page. */
  olderBefore: number | null;
};

/** The same pattern the ledger_entries_kind_check constraint enforces. */
const KIND_PATTERN = /^[a-z][a-z_]*(\.[a-z][a-z_]*)*$/;

export const ledgerSearchSchema = z.object({
  before: z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, { error: "must be a positive whole number (an entry id)." })
    .transform(Number)
    .refine(Number.isSafeInteger, { error: "is too large to be an entry id." })
    .optional(),
  kind: z
    .string()
    .max(100, { error: "must be at most 100 characters." })
    .regex(KIND_PATTERN, {
      error: "must be a ledger entry kind such as task.enqueued: lower-case words joined by dots.",
    })
    .optional(),
});

export type LedgerSearch = z.output<typeof ledgerSearchSchema>;

export async function listLedgerEntries(
  db: DbReader,
  viewer: Viewer | null,
  search: LedgerSearch,
  pageSize = LEDGER_PAGE_SIZE,
): Promise<LedgerPageDto> {
  requireScope(viewer, "ledger:read");
  const rows = await db
    .select({
      id: ledgerEntries.id,
      stream: ledgerEntries.stream,
      seq: ledgerEntries.seq,
      at: ledgerEntries.at,
      kind: ledgerEntries.kind,
      actor: ledgerEntries.actor,
      taskId: ledgerEntries.taskId,
      key: ledgerEntries.key,
    })
    .from(ledgerEntries)
    .where(
      and(
        search.before === undefined ? undefined : lt(ledgerEntries.id, search.before),
        search.kind === undefined ? undefined : eq(ledgerEntries.kind, search.kind),
      ),
    )
    .orderBy(desc(ledgerEntries.id))
    // One extra row tells us whether an older page exists without a count.
    .limit(pageSize + 1);
  const page = rows.slice(0, pageSize);
  const last = page.at(-1);
  return {
    entries: page.map(toLedgerEntryDto),
    olderBefore: rows.length > pageSize && last ? last.id : null,
  };
}

export function toLedgerEntryDto(row: {
  id: number;
  stream: string;
  seq: number;
  at: Date;
  kind: string;
  actor: string;
  taskId: string | null;
  key: string | null;
}): LedgerEntryDto {
  return {
    id: row.id,
    stream: row.stream,
    seq: row.seq,
    at: row.at.toISOString(),
    kind: row.kind,
    actor: row.actor,
    taskId: row.taskId,
    key: row.key,
  };
}
