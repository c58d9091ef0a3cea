// The ledger, a page at a time, newest first: one search schema and one query behind both the
// /ledger screen (and its live read and export) and GET /api/v1/ledger. Keyset-paginated on
// (at, id), the order of ledger_entries_at_idx and ledger_entries_kind_at_idx, so a page never
// shifts or repeats rows while new entries arrive, and no page needs a count.
import { inArray } from "drizzle-orm";
import { ledgerEntries } from "../../../db/schema";
import { requireScope, type Viewer } from "../../domain/access";
import type { JsonValue } from "../../domain/json";
import type { DbReader } from "./db-reader";
import { type LedgerApiPage, type LedgerPageDto, toLedgerApiEntry } from "./ledger-entry-dto";
import {
  encodeLedgerCursor,
  LEDGER_API_MAX_PAGE_BYTES,
  LEDGER_API_MAX_PAGE_SIZE,
  LEDGER_API_PAGE_SIZE,
  LEDGER_PAGE_SIZE,
  type LedgerSearch,
  SCREEN_MAX_DATA_BYTES,
} from "./ledger-search";
import { payload, seesPayloads } from "./payloads";
import { type Row, readLedgerRows } from "./read-ledger-rows";

function nextCursorOf(rows: Row[], more: boolean): string | null {
  const last = rows.at(-1);
  return more && last ? encodeLedgerCursor(last) : null;
}

function pageLimit(search: LedgerSearch, fallback: number): number {
  const limit = search.limit ?? fallback;
  if (!Number.isInteger(limit) || limit < 1 || limit > LEDGER_API_MAX_PAGE_SIZE) {
    throw new RangeError(`limit must be a whole number from 1 to ${LEDGER_API_MAX_PAGE_SIZE}`);
  }
  return limit;
}

/** The /ledger screen's page (its live read and its export read the same). */
export async function listLedgerEntries(
  db: DbReader,
  viewer: Viewer | null,
  search: LedgerSearch,
  pageSize = LEDGER_PAGE_SIZE,
): Promise<LedgerPageDto> {
  const visible = seesPayloads(requireScope(viewer, "ledger:read"));
  const { rows, more } = await readLedgerRows(
    db,
    search,
    pageLimit(search, pageSize),
    SCREEN_MAX_DATA_BYTES,
  );
  return {
    entries: rows.map((row) => ({
      id: row.id,
      stream: row.stream,
      seq: row.seq,
      at: row.at.toISOString(),
      kind: row.kind,
      actor: row.actor,
      taskId: row.taskId,
      key: row.key,
      data: row.dataBytes === null ? payload(visible, row.data as JsonValue) : null,
      dataOmittedBytes: row.dataBytes,
      dataPreview:
        row.preview === null || row.preview === undefined
          ? null
          : payload(visible, row.preview as JsonValue),
      hash: row.hash,
    })),
    nextCursor: nextCursorOf(rows, more),
    payloadsHidden: !visible,
  };
}

/** `GET /api/v1/ledger`: the same query, every entry whole with its hashes. */
export async function listLedgerPage(
  db: DbReader,
  viewer: Viewer | null,
  search: LedgerSearch,
): Promise<LedgerApiPage> {
  const visible = seesPayloads(requireScope(viewer, "ledger:read"));
  // Large data (heads chunks) is left out of the page read and fetched only for the entries
  // the byte budget keeps.
  const read = await readLedgerRows(
    db,
    search,
    pageLimit(search, LEDGER_API_PAGE_SIZE),
    SCREEN_MAX_DATA_BYTES,
  );
  let bytes = 0;
  let kept = 0;
  while (kept < read.rows.length && (kept === 0 || bytes <= LEDGER_API_MAX_PAGE_BYTES)) {
    bytes += (read.rows[kept] as Row).storedBytes;
    kept += 1;
  }
  const rows = read.rows.slice(0, kept);
  const large = rows.filter((r) => r.dataBytes !== null).map((r) => r.id);
  if (large.length > 0) {
    const whole = await db
      .select({ id: ledgerEntries.id, data: ledgerEntries.data })
      .from(ledgerEntries)
      .where(inArray(ledgerEntries.id, large));
    const byId = new Map(whole.map((w) => [w.id, w.data]));
    for (const r of rows) if (r.dataBytes !== null) r.data = byId.get(r.id);
  }
  const more = read.more || kept < read.rows.length;
  return {
    entries: rows.map((row) => toLedgerApiEntry(row, visible)),
    nextCursor: nextCursorOf(rows, more),
    payloadsHidden: !visible,
  };
}
