// The ledger screen: newest entries first, keyset-paginated by id, so a page never shifts or
// repeats rows while new entries arrive. `data` stays out: screens show it escaped, per entry.
// Below it, the HTTP API's listing: filters, an opaque cursor and zod schemas for OpenAPI.
import { and, desc, eq, gte, inArray, lt, sql } from "drizzle-orm";
import { z } from "zod";
import { approvals, effects, type LedgerEntryRow, ledgerEntries, tasks } from "../../../db/schema";
import { requireScope, type Viewer } from "../../domain/access";
import { isoInstant } from "../../domain/instant";
import type { JsonValue } from "../../domain/json";
import type { DbReader } from "./db-reader";
import { taskIdSchema } from "./get-task-detail";
import { payload, seesPayloads } from "./payloads";

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

// ─── The HTTP API's ledger listing ──────────────────────────────────────────────────────────
// Newest first by (at, id): the order the two composite indexes on ledger_entries hold
// (ledger_entries_at_idx and, with a kind filter, ledger_entries_kind_at_idx), so a filtered
// page is an index range read. The cursor is the (at, id) of the last entry returned.

export const LEDGER_API_PAGE_SIZE = 50;
export const LEDGER_API_MAX_PAGE_SIZE = 200;
const MAX_KINDS = 20;

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
  .regex(KIND_PATTERN, {
    error: "must be a ledger entry kind such as task.enqueued: lower-case words joined by dots.",
  });

const nameSchema = (what: string) =>
  z
    .string()
    .trim()
    .min(1, { error: `must name ${what}.` })
    .max(200, { error: "must be at most 200 characters." });

/**
 * Filters of `GET /ledger`, each optional, all of them applied together. `kind` is one kind, a
 * comma-separated list or a repeated parameter; `from` is inclusive and `to` exclusive.
 */
export const ledgerFilterSchema = z
  .object({
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
  })
  .refine((f) => f.from === undefined || f.to === undefined || f.from < f.to, {
    error: "from must be earlier than to.",
    path: ["to"],
  });

export type LedgerFilter = z.output<typeof ledgerFilterSchema>;

/** Thrown for a cursor this API did not issue; the HTTP layer answers 400, not 500. */
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

/** `cursor` and `limit` of `GET /ledger`, as query-string text or values. */
export const ledgerPageParamsSchema = z.object({
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
      { error: "is not a cursor this API issued: pass an earlier page's nextCursor unchanged." },
    )
    .optional(),
  limit: z.coerce
    .number({ error: "must be a whole number." })
    .int({ error: "must be a whole number." })
    .min(1, { error: "must be at least 1." })
    .max(LEDGER_API_MAX_PAGE_SIZE, { error: `must be at most ${LEDGER_API_MAX_PAGE_SIZE}.` })
    .default(LEDGER_API_PAGE_SIZE),
});

export type LedgerPageParams = z.input<typeof ledgerPageParamsSchema>;

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
  /** Pass as `cursor` for the next older page; null on the last page. */
  nextCursor: z.string().nullable(),
  payloadsHidden: z.boolean(),
});

export type LedgerApiPage = z.output<typeof ledgerApiPageSchema>;

export function toLedgerApiEntry(row: LedgerEntryRow, visible: boolean): LedgerApiEntry {
  return {
    ...toLedgerEntryDto(row),
    data: payload(visible, row.data as JsonValue),
    prevHash: row.prevHash,
    hash: row.hash,
  };
}

/**
 * One page of the ledger for `GET /ledger`, newest first. Agent and tool are not columns of
 * the ledger: an agent's entries are those of its tasks, a tool's those carrying the key of
 * one of its effects or approval requests. System entries (users, policies) have no task, so
 * an agent or task filter leaves them out.
 */
export async function listLedgerPage(
  db: DbReader,
  viewer: Viewer | null,
  filter: LedgerFilter,
  page: { cursor?: string; limit?: number } = {},
): Promise<LedgerApiPage> {
  const visible = seesPayloads(requireScope(viewer, "ledger:read"));
  const limit = page.limit ?? LEDGER_API_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > LEDGER_API_MAX_PAGE_SIZE) {
    throw new RangeError(`limit must be a whole number from 1 to ${LEDGER_API_MAX_PAGE_SIZE}`);
  }
  const after = page.cursor === undefined ? null : decodeLedgerCursor(page.cursor);
  const e = ledgerEntries;
  const rows = await db
    .select()
    .from(e)
    .where(
      and(
        filter.kind === undefined ? undefined : inArray(e.kind, filter.kind),
        filter.agent === undefined
          ? undefined
          : inArray(
              e.taskId,
              db.select({ id: tasks.id }).from(tasks).where(eq(tasks.agent, filter.agent)),
            ),
        filter.tool === undefined
          ? undefined
          : // One IN over a union is a semi-join the planner can drive from the key index.
            inArray(
              e.key,
              db
                .select({ key: effects.key })
                .from(effects)
                .where(eq(effects.tool, filter.tool))
                .union(
                  db
                    .select({ key: approvals.effectKey })
                    .from(approvals)
                    .where(eq(approvals.tool, filter.tool)),
                ),
            ),
        filter.actor === undefined ? undefined : eq(e.actor, filter.actor),
        filter.taskId === undefined ? undefined : eq(e.taskId, filter.taskId),
        filter.key === undefined ? undefined : eq(e.key, filter.key),
        filter.from === undefined ? undefined : gte(e.at, filter.from),
        filter.to === undefined ? undefined : lt(e.at, filter.to),
        // A row comparison, so the (at desc, id desc) indexes can start right after the cursor.
        after === null
          ? undefined
          : sql`(${e.at}, ${e.id}) < (${after.at.toISOString()}::timestamptz, ${after.id})`,
      ),
    )
    .orderBy(desc(e.at), desc(e.id))
    // One extra row tells whether an older page exists without a count.
    .limit(limit + 1);
  const entries = rows.slice(0, limit);
  const last = entries.at(-1);
  return {
    entries: entries.map((row) => toLedgerApiEntry(row, visible)),
    nextCursor: rows.length > limit && last ? encodeLedgerCursor(last) : null,
    payloadsHidden: !visible,
  };
}
