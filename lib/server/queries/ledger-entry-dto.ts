// A ledger entry as GET /api/v1/ledger returns it (with its hashes) and as the /ledger screen
// shows it (large data left out), with the pages that carry them.
import { type SQL, sql } from "drizzle-orm";
import { z } from "zod";
import { type LedgerEntryRow, ledgerEntries } from "../../../db/schema";
import type { JsonValue } from "../../domain/json";
import { prevHashSql } from "../ledger/prev-hash";
import { payload } from "./payloads";

/** The hash an entry chains onto, in a drizzle select `.from(ledgerEntries)` (not aliased). */
export const prevHashColumn: SQL<string | null> = sql<
  string | null
>`${sql.raw(prevHashSql('"ledger_entries"'))}`;

/** An entry's columns as readers see them (LedgerEntryRow), for `.select(...).from(ledgerEntries)`. */
export const ledgerEntryRowColumns = {
  id: ledgerEntries.id,
  stream: ledgerEntries.stream,
  seq: ledgerEntries.seq,
  at: ledgerEntries.at,
  kind: ledgerEntries.kind,
  actor: ledgerEntries.actor,
  taskId: ledgerEntries.taskId,
  key: ledgerEntries.key,
  data: ledgerEntries.data,
  prevHash: prevHashColumn,
  hash: ledgerEntries.hash,
};

/** One ledger entry as the API returns it: the hash fields let a client check the chain. */
export const ledgerEntrySchema = z.object({
  id: z.number().int(),
  stream: z.string(),
  seq: z.number().int(),
  at: z.iso.datetime(),
  kind: z.string(),
  actor: z.string(),
  taskId: z.string().nullable(),
  key: z.string().nullable(),
  /** HIDDEN_PAYLOAD without `payloads:read`: entries carry arguments, results and prompts. */
  data: z.json(),
  /** The hash of the entry before it in its stream (GENESIS at seq 1); null if that entry is gone. */
  prevHash: z.string().nullable(),
  hash: z.string(),
});

export type LedgerApiEntry = z.output<typeof ledgerEntrySchema>;

export const ledgerApiPageSchema = z.object({
  entries: z.array(ledgerEntrySchema),
  /**
   * Pass as `cursor` for the next older page; null on the last page. A page holds fewer than
   * `limit` entries when their data passes about 1 MB (checkpoint heads chunks).
   */
  nextCursor: z.string().nullable(),
  payloadsHidden: z.boolean(),
});

export type LedgerApiPage = z.output<typeof ledgerApiPageSchema>;

export function toLedgerApiEntry(
  row: Omit<LedgerEntryRow, "data"> & { data: unknown },
  visible: boolean,
): LedgerApiEntry {
  return {
    id: row.id,
    stream: row.stream,
    seq: row.seq,
    at: row.at.toISOString(),
    kind: row.kind,
    actor: row.actor,
    taskId: row.taskId,
    key: row.key,
    // Stored jsonb: JSON by construction.
    data: payload(visible, row.data as JsonValue),
    prevHash: row.prevHash,
    hash: row.hash,
  };
}

/** An entry as the screen shows it: `data` is null (and `dataBytes` says why) when too large. */
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
  data: JsonValue | null;
  /** The stored size of `data`, when it was left out for being larger than the screen takes. */
  dataOmittedBytes: number | null;
  /**
   * When `data` was left out: its other fields without a checkpoint's list of heads
   * (`heads`, `streams`), for the one-line summary; null when even that is too large.
   */
  dataPreview: JsonValue | null;
  hash: string;
};

export type LedgerPageDto = {
  entries: LedgerEntryDto[];
  /** Pass as `cursor` for the next older page; null on the oldest page. */
  nextCursor: string | null;
  payloadsHidden: boolean;
};
