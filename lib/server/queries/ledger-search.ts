// The ledger's search: the fields the /ledger screen's address and GET /api/v1/ledger's query
// string share, the kind filter's prefixes, the page sizes, and the (at, id) cursor's encoding.
import { z } from "zod";
import { isoInstant } from "../../domain/instant";
import { taskIdSchema } from "./get-task-detail";

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
