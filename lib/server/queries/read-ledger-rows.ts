// One page of ledger rows, newest first, for a search: its filters, the merge of the tool and
// free-text parts' pages, and the data left out of the row when larger than the caller takes.
import { and, desc, eq, gte, inArray, lt, sql } from "drizzle-orm";
import { union } from "drizzle-orm/pg-core";
import { ledgerEntries, tasks } from "../../../db/schema";
import type { DbReader } from "./db-reader";
import { entriesOfKey } from "./ledger-by-key";
import { prevHashColumn } from "./ledger-entry-dto";
import {
  freeTextParts,
  isStreamPart,
  type LedgerPart,
  taskParts,
  toolParts,
} from "./ledger-filter-parts";
import { decodeLedgerCursor, expandKinds, isKindPrefix, type LedgerSearch } from "./ledger-search";
import { readLedgerKinds } from "./list-ledger-kinds";

export type Row = {
  id: number;
  stream: string;
  seq: number;
  at: Date;
  kind: string;
  actor: string;
  taskId: string | null;
  key: string | null;
  data: unknown;
  dataBytes: number | null;
  preview: unknown;
  storedBytes: number;
  prevHash: string | null;
  hash: string;
};

/**
 * One page of the ledger, newest first, as rows. Agent and tool are not columns of the ledger:
 * an agent's entries are those of its tasks, a tool's those carrying the key of one of its
 * effects or approval requests (see toolParts). System entries (users, policies) have no task,
 * so an agent or task filter leaves them out.
 */
export async function readLedgerRows(
  db: DbReader,
  search: LedgerSearch,
  limit: number,
  maxDataBytes: number | null,
): Promise<{ rows: Row[]; more: boolean }> {
  const after = search.cursor === undefined ? null : decodeLedgerCursor(search.cursor);
  const kinds =
    search.kind === undefined
      ? undefined
      : search.kind.some(isKindPrefix)
        ? expandKinds(search.kind, await readLedgerKinds(db))
        : search.kind;
  const e = ledgerEntries;
  const columns = {
    id: e.id,
    stream: e.stream,
    seq: e.seq,
    at: e.at,
    kind: e.kind,
    actor: e.actor,
    taskId: e.taskId,
    key: e.key,
    // pg_column_size is the stored (compressed) size: cheap, and the bound that matters here.
    data:
      maxDataBytes === null
        ? e.data
        : sql<unknown>`case when pg_column_size(${e.data}) > ${maxDataBytes} then null else ${e.data} end`,
    dataBytes:
      maxDataBytes === null
        ? sql<null>`null`
        : sql<
            number | null
          >`case when pg_column_size(${e.data}) > ${maxDataBytes} then pg_column_size(${e.data}) end`,
    preview:
      maxDataBytes === null
        ? sql<null>`null`
        : sql<unknown>`case when pg_column_size(${e.data}) > ${maxDataBytes} and jsonb_typeof(${e.data}) = 'object'
            then (select p from (select ${e.data} - 'heads' - 'streams' as p) x
                   where pg_column_size(p) <= ${maxDataBytes}) end`,
    storedBytes: sql<number>`pg_column_size(${e.data})`.mapWith(Number),
    prevHash: prevHashColumn,
    hash: e.hash,
  };
  const filters = [
    kinds === undefined ? undefined : kinds.length === 0 ? sql`false` : inArray(e.kind, kinds),
    search.agent === undefined
      ? undefined
      : inArray(
          e.taskId,
          db.select({ id: tasks.id }).from(tasks).where(eq(tasks.agent, search.agent)),
        ),
    search.actor === undefined ? undefined : eq(e.actor, search.actor),
    search.key === undefined ? undefined : entriesOfKey(search.key),
    search.from === undefined ? undefined : gte(e.at, search.from),
    search.to === undefined ? undefined : lt(e.at, search.to),
  ];
  // A row comparison, so the (at desc, id desc) indexes can start right after the cursor.
  const beforeCursor =
    after === null
      ? undefined
      : sql`(${e.at}, ${e.id}) < (${after.at.toISOString()}::timestamptz, ${after.id})`;
  // One extra row tells whether an older page exists without a count. Newest first: by time,
  // or, for a part that is one stream, by seq on the (stream, seq) key (the same order).
  const page = (parts: readonly LedgerPart[]) => {
    const stream = parts.find(isStreamPart)?.stream;
    return db
      .select(columns)
      .from(e)
      .where(
        and(
          ...filters,
          ...parts.map((p) => (isStreamPart(p) ? eq(e.stream, p.stream) : p)),
          // In one stream the cursor's entry, if it is of the stream, is a seq to walk back
          // from: the same entries. Given the time bound as a condition, the planner intersected
          // the time index with the stream's whole key and sorted what it found (26 ms for a
          // page of the task with 20k entries at 10M, where its first page takes 3 ms).
          stream === undefined || after === null
            ? beforeCursor
            : sql`coalesce(${e.seq} < (select c.seq from ledger_entries c
                                         where c.id = ${after.id} and c.stream = ${stream}),
                           ${beforeCursor})`,
        ),
      )
      .orderBy(...(stream === undefined ? [desc(e.at), desc(e.id)] : [desc(e.seq)]))
      .limit(limit + 1);
  };
  // The task, tool and free-text filters are each "any of these parts"; every combination of one
  // part of each is a page of its own, newest first on its index, and the pages are merged. One OR
  // instead is no index's condition: a bitmap of every match, sorted, or a scan of the ledger.
  let branches: LedgerPart[][] = [[]];
  for (const anyOf of [
    search.taskId === undefined ? null : taskParts(search.taskId),
    search.tool === undefined ? null : toolParts(search.tool),
    search.q === undefined ? null : freeTextParts(search.q),
  ]) {
    if (anyOf !== null) branches = branches.flatMap((b) => anyOf.map((part) => [...b, part]));
  }
  const [first, second, ...rest] = branches.map(page);
  const rows: Row[] =
    first === undefined
      ? []
      : second === undefined
        ? await first
        : // union, not union all: an entry may match two parts (a key and its own prefix).
          await union(first, second, ...rest)
            .orderBy(desc(e.at), desc(e.id))
            .limit(limit + 1);
  return { rows: rows.slice(0, limit), more: rows.length > limit };
}
