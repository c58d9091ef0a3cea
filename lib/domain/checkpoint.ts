// A checkpoint commits to every stream head at once, so a stream deleted wholesale (entries and
// head) is still missed by the next verify. Since v3 the heads sit in `ledger.checkpoint_heads`
// entries of at most HEADS_PER_CHUNK streams each, in byte order (PostgreSQL's collate "C"),
// appended just before the checkpoint; the checkpoint lists the chunks (seq, range, count,
// digest) and its digest is one root over that list, so it stays small at millions of streams.
// What is signed is a small statement about the checkpoint — where it sits in the system
// stream, when it was written, the digest and how many heads it covers — so a signature cannot
// be moved to another position or time. v2 (one entry holding every head, digest over them)
// and the legacy form (no statement) are still read and verified as before.
import { z } from "zod";
import { sha256Hex } from "./hash";
import { canonicalJson } from "./json";

export const CHECKPOINT_KIND = "ledger.checkpoint";
export const CHECKPOINT_HEADS_KIND = "ledger.checkpoint_heads";
/** The one-entry form: `digest` is over every head. Read and verified, no longer written. */
export const CHECKPOINT_STATEMENT_TYPE_V2 = "agent-ledger.checkpoint.v2";
/** The chunked form: `digest` is the root over the chunk list (a new meaning, so a new type). */
export const CHECKPOINT_STATEMENT_TYPE = "agent-ledger.checkpoint.v3";
/** Streams per heads chunk: about 1.4 MB of jsonb, far from PostgreSQL's 255 MB limit. */
export const HEADS_PER_CHUNK = 10_000;

export type StreamHead = { stream: string; seq: number; hash: string };

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, { error: "must be 64 lower-case hex digits" });

/** What a checkpoint's signature covers, and what `checkpoint --export` ships outside. */
export const checkpointStatementSchema = z.strictObject({
  type: z.enum([CHECKPOINT_STATEMENT_TYPE_V2, CHECKPOINT_STATEMENT_TYPE]),
  /** The checkpoint entry's own seq in the system stream. */
  seq: z.number().int().min(1),
  /** When it was written (database clock), ISO 8601 with milliseconds. */
  at: z.iso.datetime(),
  digest: hex64,
  /** How many stream heads the digest covers. */
  streams: z.number().int().min(0),
  /** Which key signed it (see keyId in lib/server/ledger/signing.ts); absent when unsigned. */
  keyId: z.string().min(1).optional(),
});
export type CheckpointStatement = z.infer<typeof checkpointStatementSchema>;

const signatureFields = {
  algorithm: z.literal("ed25519").optional(),
  publicKey: z.string().optional(),
  signature: z.string().optional(),
};

const headSchema = z.object({ stream: z.string(), seq: z.number().int(), hash: z.string() });

/**
 * The data of a one-entry (v2) ledger.checkpoint. Without `statement` it is a legacy
 * checkpoint, written before issue 10, whose signature covers the digest alone.
 */
export const checkpointDataSchema = z.object({
  streams: z.array(headSchema),
  digest: z.string(),
  statement: checkpointStatementSchema.optional(),
  ...signatureFields,
});
export type CheckpointData = z.infer<typeof checkpointDataSchema>;

/** One chunk as the checkpoint lists it: where it is and what it must hash to. */
export const chunkRefSchema = z.strictObject({
  /** The heads entry's seq in the system stream. */
  seq: z.number().int().min(1),
  first: z.string(),
  last: z.string(),
  count: z.number().int().min(1),
  digest: hex64,
});
export type ChunkRef = z.infer<typeof chunkRefSchema>;

/** The data of a ledger.checkpoint_heads entry. */
export const headsChunkDataSchema = z.strictObject({
  /** Its place in the checkpoint's chunk list, from 0. */
  index: z.number().int().min(0),
  first: z.string(),
  last: z.string(),
  count: z.number().int().min(1),
  heads: z.array(headSchema).min(1),
  digest: hex64,
});
export type HeadsChunkData = z.infer<typeof headsChunkDataSchema>;

/** The data of a chunked (v3) ledger.checkpoint. */
export const chunkedCheckpointDataSchema = z.strictObject({
  chunks: z.array(chunkRefSchema),
  digest: hex64,
  statement: checkpointStatementSchema,
  ...signatureFields,
});
export type ChunkedCheckpointData = z.infer<typeof chunkedCheckpointDataSchema>;

export type ParsedCheckpoint =
  | { format: "chunks"; data: ChunkedCheckpointData }
  | { format: "heads"; data: CheckpointData };

/** Either form of a ledger.checkpoint's data, or null when it is neither. */
export function parseCheckpointData(data: unknown): ParsedCheckpoint | null {
  const chunked = chunkedCheckpointDataSchema.safeParse(data);
  if (chunked.success) return { format: "chunks", data: chunked.data };
  const heads = checkpointDataSchema.safeParse(data);
  return heads.success ? { format: "heads", data: heads.data } : null;
}

/** The file `agent-ledger checkpoint --export` writes and `verify --expect` reads. */
export const checkpointExportSchema = z.strictObject({
  statement: checkpointStatementSchema,
  ...signatureFields,
});
export type CheckpointExport = z.infer<typeof checkpointExportSchema>;

/** The v2 digest: over every head, sorted (by UTF-16 units, as it always was). */
export function headsDigest(heads: readonly StreamHead[]): string {
  const sorted = [...heads].sort((a, b) =>
    a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0,
  );
  return sha256Hex(canonicalJson(sorted));
}

/** The exact text a statement's signature is over: its canonical JSON (RFC 8785). */
export function statementText(statement: CheckpointStatement): string {
  const { keyId, ...rest } = statement;
  return canonicalJson(keyId === undefined ? rest : { ...rest, keyId });
}

/**
 * Byte order of the strings' UTF-8, which is PostgreSQL's collate "C" and code point order.
 * UTF-16 units order the same except where a surrogate (a code point past U+FFFF) meets a
 * unit at or above U+E000.
 */
export function compareBytes(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** A chunk's digest: over its heads as listed, which must be in byte order (checked apart). */
export function chunkDigest(heads: readonly StreamHead[]): string {
  return sha256Hex(canonicalJson(heads));
}

/** The v3 checkpoint digest: one root over the chunk list. */
export function chunksRoot(chunks: readonly ChunkRef[]): string {
  return sha256Hex(canonicalJson(chunks));
}

/**
 * What is wrong with a heads chunk against the checkpoint's reference to it, or null.
 * The digest covers order, but a chunk written out of order by a forger who re-signed
 * would still break the merge readers rely on, so order is checked too.
 */
export function headsChunkProblem(
  data: HeadsChunkData,
  ref: ChunkRef,
  index: number,
): string | null {
  const { heads } = data;
  if (data.index !== index)
    return `it says it is chunk ${data.index}, the checkpoint lists it as chunk ${index}`;
  if (heads.length !== data.count || data.count !== ref.count)
    return `it holds ${heads.length} heads, it says ${data.count}, the checkpoint says ${ref.count}`;
  if (
    data.first !== ref.first ||
    data.last !== ref.last ||
    heads[0]?.stream !== ref.first ||
    heads[heads.length - 1]?.stream !== ref.last
  )
    return `its range does not match the checkpoint's (${ref.first} … ${ref.last})`;
  for (let i = 1; i < heads.length; i++) {
    if (compareBytes((heads[i - 1] as StreamHead).stream, (heads[i] as StreamHead).stream) >= 0)
      return `its heads are out of order at ${(heads[i] as StreamHead).stream}`;
  }
  const digest = chunkDigest(heads);
  if (digest !== data.digest || digest !== ref.digest)
    return "its heads do not match its digest or the checkpoint's";
  return null;
}

/** What is wrong with a chunk list itself (placement just before `seq`, order, total), or null. */
export function chunkListProblem(
  chunks: readonly ChunkRef[],
  seq: number,
  streams: number,
): string | null {
  let total = 0;
  for (const [i, c] of chunks.entries()) {
    if (c.seq !== seq - chunks.length + i)
      return `chunk ${i} is at system seq ${c.seq}, not at ${seq - chunks.length + i} just before the checkpoint`;
    if (compareBytes(c.first, c.last) > 0) return `chunk ${i} runs backwards`;
    const prev = chunks[i - 1];
    if (prev && compareBytes(prev.last, c.first) >= 0)
      return `chunk ${i} overlaps the one before it`;
    total += c.count;
  }
  return total === streams ? null : `its chunks hold ${total} heads, its statement says ${streams}`;
}

/** The chunk whose range holds `stream`, by bisection over the ordered list. */
export function chunkFor(chunks: readonly ChunkRef[], stream: string): number | null {
  let lo = 0;
  let hi = chunks.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = chunks[mid] as ChunkRef;
    if (compareBytes(stream, c.first) < 0) hi = mid - 1;
    else if (compareBytes(stream, c.last) > 0) lo = mid + 1;
    else return mid;
  }
  return null;
}
