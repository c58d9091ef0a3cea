// What an archive (`agent-ledger archive`, issue 23) is made of, as files outside the database:
// entries.jsonl.gz (every entry of the archived streams, the lines `export --format jsonl`
// writes), heads.jsonl.gz (one line per stream: its head and task) and statement.json, a
// signed statement that names exactly those streams through a digest over the heads and the
// two files' sha256, and index.json, where each data file's gzip members start and which streams
// they hold (unsigned: what is read through it is checked against the signed heads, so a wrong
// index can hide a stream, never change one). Pure: the writer and the verifier both build on it.
import { z } from "zod";
import { sha256Hex } from "./hash";
import { canonicalJson } from "./json";

export const ARCHIVE_STATEMENT_TYPE = "agent-ledger.archive.v1";
/** The system entry that freezes the archived streams. */
export const ARCHIVED_KIND = "ledger.archived";
/** The system entry of the one sanctioned removal: a month's partition, all of it archived. */
export const DETACHED_KIND = "ledger.detached";
export const ARCHIVE_FILES = {
  entries: "entries.jsonl.gz",
  heads: "heads.jsonl.gz",
  statement: "statement.json",
  index: "index.json",
} as const;
/** The SQLSTATE the database raises for an append to an archived stream (migration 0054). */
export const STREAM_ARCHIVED_SQLSTATE = "LA001";

/**
 * The archive named by the guard's refusal (`stream … is archived (archive …): appends are
 * refused`, SQLSTATE LA001), or null for any other error: commands answer it as a refusal, not
 * as a database error.
 */
export function archivedStreamRefusal(error: unknown): { archiveId: string } | null {
  if (typeof error !== "object" || error === null) return null;
  if (!("code" in error) || error.code !== STREAM_ARCHIVED_SQLSTATE) return null;
  const message = "message" in error && typeof error.message === "string" ? error.message : "";
  return { archiveId: /\(archive ([0-9a-f-]{36})\)/.exec(message)?.[1] ?? "unknown" };
}

/** What a person is told when an action would append to an archived task's stream. */
export const archivedTaskMessage = (archiveId: string) =>
  `This task is archived (archive ${archiveId}) and can no longer change`;

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, { error: "must be 64 lower-case hex digits" });
const fileRef = z.strictObject({ sha256: hex64, bytes: z.number().int().min(0) });

export const archiveStatementSchema = z.strictObject({
  type: z.literal(ARCHIVE_STATEMENT_TYPE),
  archiveId: z.uuid(),
  /** Streams whose task closed before this instant. */
  before: z.iso.datetime(),
  /** When the archive was written (database clock). */
  at: z.iso.datetime(),
  streams: z.number().int().min(1),
  entries: z.number().int().min(1),
  headsDigest: hex64,
  files: z.strictObject({ entries: fileRef, heads: fileRef }),
  keyId: z.string().min(1),
});
export type ArchiveStatement = z.infer<typeof archiveStatementSchema>;

/** statement.json. */
export const archiveFileSchema = z.strictObject({
  statement: archiveStatementSchema,
  algorithm: z.literal("ed25519"),
  publicKey: z.string().min(1),
  signature: z.string().min(1),
});
export type ArchiveFile = z.infer<typeof archiveFileSchema>;

/** One gzip member of a data file: [byte offset, byte length, first stream, last stream]. */
export type ArchiveMember = [offset: number, bytes: number, first: string, last: string];

export const ARCHIVE_INDEX_TYPE = "agent-ledger.archive-index.v1";
const memberSchema = z.tuple([
  z.number().int().min(0),
  z.number().int().min(1),
  z.string().min(1),
  z.string().min(1),
]);
/** index.json: each data file's members, in file (and stream byte) order. */
export const archiveIndexSchema = z.strictObject({
  type: z.literal(ARCHIVE_INDEX_TYPE),
  entries: z.array(memberSchema),
  heads: z.array(memberSchema),
});
export type ArchiveIndex = z.infer<typeof archiveIndexSchema>;

/** One line of heads.jsonl.gz. */
export const archiveHeadSchema = z.strictObject({
  stream: z.string().min(1),
  seq: z.number().int().min(1),
  hash: hex64,
  taskId: z.uuid(),
  closedAt: z.iso.datetime(),
});
export type ArchiveHead = z.infer<typeof archiveHeadSchema>;

/** One line of entries.jsonl.gz: an entry as `export --format jsonl` writes it. */
export const archiveEntrySchema = z.strictObject({
  id: z.number().int(),
  stream: z.string().min(1),
  seq: z.number().int().min(1),
  at: z.iso.datetime(),
  kind: z.string(),
  actor: z.string(),
  taskId: z.string().nullable(),
  key: z.string().nullable(),
  data: z.json(),
  prevHash: hex64,
  hash: hex64,
});
export type ArchiveEntry = z.infer<typeof archiveEntrySchema>;

/** What verify --archive finds wrong, first one first. */
export type ArchiveProblemKind =
  | "bad_statement"
  | "bad_signature"
  | "missing_file"
  | "file_mismatch"
  | "bad_line"
  | "bad_order"
  | "count_mismatch"
  | "digest_mismatch"
  | "hash_mismatch"
  | "prev_hash_mismatch"
  | "seq_gap"
  | "head_mismatch"
  | "missing_head"
  | "missing_entries"
  | "missing_stream"
  | "not_archived"
  | "entry_mismatch"
  | "missing_archive_entry"
  | "statement_mismatch";

export type ArchiveProblem = {
  kind: ArchiveProblemKind;
  stream: string | null;
  seq: number | null;
  message: string;
};

/** The data of the ledger.archived system entry. */
export type ArchivedEntryData = {
  archiveId: string;
  before: string;
  streams: number;
  entries: number;
  headsDigest: string;
  statementDigest: string;
};

/** The data of the ledger.detached system entry. */
export type DetachedEntryData = {
  /** YYYY-MM: the UTC month the streams were opened in. */
  month: string;
  streams: number;
  /** Entries the partition held when it was detached. */
  entries: number;
  /** The archives that hold those streams now, each with its ledger.archived statement digest. */
  archives: { archiveId: string; statementDigest: string | null }[];
};

/**
 * A head as it is written and digested: canonical JSON, one line. headsDigest is the sha256 of
 * these lines in order, each ending in "\n", which is also the heads file's content unzipped.
 */
export function headLine(head: ArchiveHead): string {
  return `${canonicalJson(head)}\n`;
}

/** The exact text a statement's signature is over. */
export function archiveStatementText(statement: ArchiveStatement): string {
  return canonicalJson(statement);
}

/** How the ledger.archived entry names the statement: sha256 of statement.json's canonical JSON. */
export function archiveFileDigest(file: ArchiveFile): string {
  return sha256Hex(canonicalJson(file));
}
