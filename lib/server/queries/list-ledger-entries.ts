// The ledger, a page at a time, newest first: one search schema and one query behind both the
// /ledger screen (and its live read and export) and GET /api/v1/ledger. Keyset-paginated on
// (at, id), the order of ledger_entries_at_idx and ledger_entries_kind_at_idx, so a page never
// shifts or repeats rows while new entries arrive, and no page needs a count.
import { and, desc, eq, gte, inArray, lt, type SQL, sql } from "drizzle-orm";
import { union } from "drizzle-orm/pg-core";
import { z } from "zod";
import { type LedgerEntryRow, ledgerEntries, tasks } from "../../../db/schema";
import { requireScope, type Viewer } from "../../domain/access";
import { isoInstant } from "../../domain/instant";
import type { JsonValue } from "../../domain/json";
import { bulkStream } from "../ledger/append-ledger";
import type { DbReader } from "./db-reader";
import { taskIdSchema } from "./get-task-detail";
import { entriesOfKey, keyedEntries } from "./ledger-by-key";
import { readLedgerKinds } from "./list-ledger-kinds";
import { payload, seesPayloads } from "./payloads";

export const LEDGER_PAGE_SIZE = 50;
export const LEDGER_API_PAGE_SIZE = LEDGER_PAGE_SIZE;
export const LEDGER_API_MAX_PAGE_SIZE = 200;
const MAX_KINDS = 20;
/** Above this, the screen says how large an entry's data is instead of sending it (checkpoints). */
export const SCREEN_MAX_DATA_BYTES = 64 * 1024;
/**
 * An API page stops after the entry that takes its data past this (stored size), so the newest
 * page after a checkpoint of a million streams carries about one heads chunk, not a hundred.
 */
export const LEDGER_API_MAX_PAGE_BYTES = 1024 * 1024;

/** A kind (the ledger_entries_kind_check pattern), or a prefix of whole words ending in `.*` (effect.* is every effect.… kind). */
const KIND_OR_PREFIX = /^[a-z][a-z_]*(\.[a-z][a-z_]*)*(\.\*)?$/;

/** An effect key as the runtime derives it: 64 hex digits, any case on input. */
export const effectKeySchema = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, {
    error: "is not an effect key. Effect keys are 64 hexadecimal digits (a sha256).",
  })
  .transform((key) => key.toLowerCase());

const kindSchema = z
  .string()
  .max(100, { error: "must be at most 100 characters." })
  .regex(KIND_OR_PREFIX, {
    error:
      "must be a ledger entry kind such as task.enqueued (lower-case words joined by dots), or a prefix such as effect.*",
  });

const nameSchema = (what: string) =>
  z
    .string()
    .trim()
    .min(1, { error: `must name ${what}.` })
    .max(200, { error: "must be at most 200 characters." });

/** Whether a kind filter entry is a prefix (effect.*) rather than one kind. */
export function isKindPrefix(kind: string): boolean {
  return kind.endsWith(".*");
}

/** The kinds of `known` that `patterns` select, each once, in the order known lists them. */
export function expandKinds(patterns: readonly string[], known: readonly string[]): string[] {
  const exact = new Set(patterns.filter((p) => !isKindPrefix(p)));
  const prefixes = patterns.filter(isKindPrefix).map((p) => p.slice(0, -1));
  const fromKnown = known.filter((k) => exact.has(k) || prefixes.some((p) => k.startsWith(p)));
  // An exact kind nobody has recorded yet still filters (to nothing), as the API always did.
  return [...new Set([...fromKnown, ...exact])];
}

/**
 * What the ledger can be filtered by, each optional, all applied together: the screen's
 * address and the API's query string. `kind` is one kind or prefix, a comma-separated list or a
 * repeated parameter; `from` is inclusive and `to` exclusive; `q` is free text (see
 * `freeTextParts`). `cursor` is the (at, id) of the last entry of the page before.
 */
export const ledgerSearchFields = {
  kind: z
    .union([z.string(), z.array(z.string())])
    .transform((value) => [
      ...new Set(
        (Array.isArray(value) ? value : [value])
          .flatMap((v) => v.split(","))
          .map((v) => v.trim())
          .filter((v) => v !== ""),
      ),
    ])
    .pipe(
      z
        .array(kindSchema)
        .min(1, { error: "must name at least one kind." })
        .max(MAX_KINDS, { error: `may name at most ${MAX_KINDS} kinds.` }),
    )
    .optional(),
  /** Entries of tasks of this agent. */
  agent: nameSchema("an agent").optional(),
  /** Entries about effects of this tool (and approvals asked for it), by their key. */
  tool: nameSchema("a tool").optional(),
  /** Exactly as recorded, e.g. `user:rita@example.com`, `worker:host-1`, `token:ci`. */
  actor: z
    .string()
    .min(1, { error: "must name an actor." })
    .max(320, { error: "must be at most 320 characters." })
    .optional(),
  taskId: taskIdSchema.optional(),
  key: effectKeySchema.optional(),
  from: isoInstant.optional(),
  to: isoInstant.optional(),
  /** A recipient, Message-ID, refund id, intent value, task id or (a prefix of) an effect key. */
  q: z
    .string()
    .trim()
    .min(1, { error: "must not be empty." })
    .max(320, { error: "must be at most 320 characters." })
    // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing them is the point
    .regex(/^[^\u0000-\u001f\u007f]*$/, { error: "must not contain control characters." })
    .optional(),
  cursor: z
    .string()
    .refine(
      (c) => {
        try {
          decodeLedgerCursor(c);
          return true;
        } catch {
          return false;
        }
      },
      { error: "is not a cursor this ledger issued: pass an earlier page's cursor unchanged." },
    )
    .optional(),
  limit: z.coerce
    .number({ error: "must be a whole number." })
    .int({ error: "must be a whole number." })
    .min(1, { error: "must be at least 1." })
    .max(LEDGER_API_MAX_PAGE_SIZE, { error: `must be at most ${LEDGER_API_MAX_PAGE_SIZE}.` })
    .optional(),
};

const fromBeforeTo = <T extends { from?: Date; to?: Date }>(s: T) =>
  s.from === undefined || s.to === undefined || s.from < s.to;
const FROM_BEFORE_TO = { error: "from must be earlier than to.", path: ["to"] };

/** The screen's address (unknown parameters ignored, as on every screen). */
export const ledgerSearchSchema = z.object(ledgerSearchFields).refine(fromBeforeTo, FROM_BEFORE_TO);
/** The API's query string: the same fields; an unknown parameter is a 400 (a typo filters nothing). */
export const ledgerApiQuerySchema = z
  .object(ledgerSearchFields)
  .strict()
  .refine(fromBeforeTo, FROM_BEFORE_TO);

export type LedgerSearch = z.output<typeof ledgerSearchSchema>;
/** The filters alone, without the page position. */
export type LedgerFilter = Omit<LedgerSearch, "cursor" | "limit">;

/** Thrown for a cursor this ledger did not issue; the HTTP layer answers 400, not 500. */
export class LedgerCursorError extends Error {
  override name = "LedgerCursorError";
}

type CursorPosition = { at: Date; id: number };

export function encodeLedgerCursor(position: CursorPosition): string {
  return Buffer.from(`${position.at.getTime()}.${position.id}`, "utf8").toString("base64url");
}

const CURSOR_TEXT = /^([0-9]{1,15})\.([1-9][0-9]{0,15})$/;
/** 9999-12-31T23:59:59.999Z: past it JavaScript writes "+010000-…", which PostgreSQL refuses. */
const LAST_CURSOR_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** The position inside a cursor, or LedgerCursorError saying what is wrong with it. */
export function decodeLedgerCursor(cursor: string): CursorPosition {
  const refuse = () =>
    new LedgerCursorError(
      "cursor is not valid: pass the nextCursor of an earlier page unchanged, or leave it out for the newest entries",
    );
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) throw refuse();
  const match = CURSOR_TEXT.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  const ms = Number(match?.[1]);
  const id = Number(match?.[2]);
  // The id is a bigint column: 16 digits always fit; a safe integer keeps it exact in JavaScript.
  if (!match || !Number.isSafeInteger(id) || !(ms <= LAST_CURSOR_MS)) throw refuse();
  return { at: new Date(ms), id };
}

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
  prevHash: z.string(),
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

type Row = {
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
  prevHash: string;
  hash: string;
};

const HEX_PREFIX = /^[0-9a-f]{8,64}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Free text, matched where each thing is recorded and never as a substring of every entry's
 * data (a leading-wildcard scan of the whole ledger): the effects whose recipient (`to` in the
 * arguments or intent, any case), Message-ID (with or without brackets, or the key inside it),
 * refund id or any top-level intent value equals it, by their keys; an effect key or a prefix of
 * at least 8 hex digits; a task id or a bulk action's id. The effect expressions are the ones /why matches on, so the
 * same indexes serve both (effects_intent_values_idx for the intent values). Returned as parts,
 * any of which may match: each is a page of its own (see readLedgerRows), since an OR of a
 * key subquery and a task id is no index's condition and read the whole ledger (3 s at 1M).
 */
function freeTextParts(q: string): SQL[] {
  const e = ledgerEntries;
  const lower = q.toLowerCase();
  const bare = q.replace(/^<(.*)>$/, "$1");
  const local = bare.slice(0, bare.lastIndexOf("@")).toLowerCase();
  const keyInMessageId = /^[0-9a-f]{64}$/.test(local) ? local : null;
  // A jsonpath string literal: JSON's escaping is jsonpath's.
  const intentValue = `$.* ? (@ == ${JSON.stringify(q)})`;
  const keyed = keyedEntries(
    sql`lower(args ->> 'to') = ${lower} or lower(intent ->> 'to') = ${lower}
        or result ->> 'messageId' in (${`<${bare}>`}, ${bare})
        or result ->> 'refundId' = ${q}
        or intent @? ${intentValue}::jsonpath
        or key = ${keyInMessageId}`,
    sql`effect_key = ${keyInMessageId}`,
  );
  const parts: SQL[] = [keyed];
  // Keys are lower-case hex: a range on the effects' and approvals' keys, which a LIKE under a
  // locale cannot use.
  if (HEX_PREFIX.test(lower)) {
    const upTo = `${lower}g`;
    parts.push(
      keyedEntries(
        sql`key >= ${lower} and key < ${upTo}`,
        sql`effect_key >= ${lower} and effect_key < ${upTo}`,
      ),
    );
  }
  // A UUID names a task or a bulk action: the bulk's own stream (requested with its members,
  // each member's outcome, its end), by the (stream, seq) index.
  if (UUID.test(lower)) parts.push(eq(e.taskId, lower), eq(e.stream, bulkStream(lower)));
  return parts;
}

/**
 * The entries about effects of `tool` (and approvals asked for it), in two parts that each walk
 * an index newest first: the entries whose data names the tool (every effect.* and
 * approval.requested entry does: ledger_entries_tool_at_idx), and the few keyed entries whose
 * data does not (outcome.resolved: ledger_entries_untooled_at_idx), matched by their key's
 * effect or approval one probe at a time. The tool is a function of the key (it is part of what
 * the key is derived from), so both parts together are the entries with a key of that tool.
 */
function toolParts(tool: string): [SQL, SQL] {
  const e = ledgerEntries;
  return [
    sql`(${e.key} is not null and ${e.data} ->> 'tool' = ${tool})`,
    sql`(${e.key} is not null and ${e.data} ->> 'tool' is null
         and ((select f.tool from effects f where f.key = ${e.key}) = ${tool}
              or exists (select from approvals a where a.effect_key = ${e.key} and a.tool = ${tool})))`,
  ];
}

/**
 * One page of the ledger, newest first, as rows. Agent and tool are not columns of the ledger:
 * an agent's entries are those of its tasks, a tool's those carrying the key of one of its
 * effects or approval requests (see toolParts). System entries (users, policies) have no task,
 * so an agent or task filter leaves them out.
 */
async function readLedgerRows(
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
    prevHash: e.prevHash,
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
    search.taskId === undefined ? undefined : eq(e.taskId, search.taskId),
    search.key === undefined ? undefined : entriesOfKey(search.key),
    search.from === undefined ? undefined : gte(e.at, search.from),
    search.to === undefined ? undefined : lt(e.at, search.to),
    // A row comparison, so the (at desc, id desc) indexes can start right after the cursor.
    after === null
      ? undefined
      : sql`(${e.at}, ${e.id}) < (${after.at.toISOString()}::timestamptz, ${after.id})`,
  ];
  // One extra row tells whether an older page exists without a count.
  const page = (parts: readonly SQL[]) =>
    db
      .select(columns)
      .from(e)
      .where(and(...filters, ...parts))
      .orderBy(desc(e.at), desc(e.id))
      .limit(limit + 1);
  // The tool and free-text filters are each "any of these parts"; every combination of one part
  // of each is a page of its own, newest first on its index, and the pages are merged. One OR
  // instead is no index's condition: a bitmap of every match, sorted, or a scan of the ledger.
  let branches: SQL[][] = [[]];
  for (const anyOf of [
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
