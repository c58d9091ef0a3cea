// A checkpoint commits to every stream head at once: a digest over the sorted heads, so a
// stream deleted wholesale (entries and head) is still missed by the next verify. What is
// signed is a small statement about the checkpoint — where it sits in the system stream, when
// it was written, the digest and how many heads it covers — so a signature cannot be moved to
// another position or time, and the digest can later cover something else (a Merkle root)
// without the statement changing shape.
import { z } from "zod";
import { sha256Hex } from "./hash";
import { canonicalJson } from "./json";

export const CHECKPOINT_KIND = "ledger.checkpoint";
export const CHECKPOINT_STATEMENT_TYPE = "agent-ledger.checkpoint.v2";

export type StreamHead = { stream: string; seq: number; hash: string };

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, { error: "must be 64 lower-case hex digits" });

/** What a checkpoint's signature covers, and what `checkpoint --export` ships outside. */
export const checkpointStatementSchema = z.strictObject({
  type: z.literal(CHECKPOINT_STATEMENT_TYPE),
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

/**
 * The data of a ledger.checkpoint entry. Without `statement` it is a legacy checkpoint, written
 * before issue 10, whose signature covers the digest alone.
 */
export const checkpointDataSchema = z.object({
  streams: z.array(z.object({ stream: z.string(), seq: z.number().int(), hash: z.string() })),
  digest: z.string(),
  statement: checkpointStatementSchema.optional(),
  ...signatureFields,
});
export type CheckpointData = z.infer<typeof checkpointDataSchema>;

/** The file `agent-ledger checkpoint --export` writes and `verify --expect` reads. */
export const checkpointExportSchema = z.strictObject({
  statement: checkpointStatementSchema,
  ...signatureFields,
});
export type CheckpointExport = z.infer<typeof checkpointExportSchema>;

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
