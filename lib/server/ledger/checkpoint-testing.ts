// Test fixtures for checkpoints: one written the old way (v2: every head in the one entry, as
// write-checkpoint.ts did before chunks), and an insider's consistent forgery of a chunked
// one (heads, chunk digest, chunk list, root and statement all recomputed; the signature left
// as it was, since the insider has no key).
import type { KeyObject } from "node:crypto";
import type { SqlClient } from "../../../db/client";
import {
  CHECKPOINT_KIND,
  CHECKPOINT_STATEMENT_TYPE_V2,
  type CheckpointStatement,
  type ChunkedCheckpointData,
  chunkDigest,
  chunksRoot,
  type HeadsChunkData,
  headsDigest,
  type StreamHead,
  statementText,
} from "../../domain/checkpoint";
import { appendLedger, SYSTEM_STREAM } from "./append-ledger";
import { keyId, rawPublicKey, signText } from "./signing";

/** Appends a v2 checkpoint exactly as the one-entry writer did, and returns its statement. */
export async function writeV2CheckpointIn(
  client: SqlClient,
  signingKey?: KeyObject,
): Promise<{ statement: CheckpointStatement; signature?: string }> {
  const locked = await client.query<{ head_seq: number }>(
    "select head_seq from ledger_streams where stream = $1 for update",
    [SYSTEM_STREAM],
  );
  const seq = Number(locked.rows[0]?.head_seq ?? 0) + 1;
  const { rows } = await client.query<{ stream: string; head_seq: number; head_hash: string }>(
    "select stream, head_seq, head_hash from ledger_streams where head_seq > 0 order by stream",
  );
  const streams = rows.map((r) => ({
    stream: r.stream,
    seq: Number(r.head_seq),
    hash: r.head_hash,
  }));
  const digest = headsDigest(streams);
  const clock = await client.query<{ now: Date }>(
    "select date_trunc('milliseconds', clock_timestamp()) as now",
  );
  const statement: CheckpointStatement = {
    type: CHECKPOINT_STATEMENT_TYPE_V2,
    seq,
    at: (clock.rows[0]?.now ?? new Date()).toISOString(),
    digest,
    streams: streams.length,
    ...(signingKey ? { keyId: keyId(signingKey) } : {}),
  };
  const signature = signingKey ? signText(signingKey, statementText(statement)) : undefined;
  const signed = signingKey
    ? { algorithm: "ed25519", publicKey: rawPublicKey(signingKey), signature }
    : {};
  await appendLedger(client, SYSTEM_STREAM, {
    kind: CHECKPOINT_KIND,
    actor: "old-writer",
    data: { streams, digest, statement, ...signed },
  });
  return { statement, ...(signature ? { signature } : {}) };
}

type Row = { id: number; seq: number; data: unknown };

/** The latest chunked checkpoint's entry. */
export async function latestChunked(
  client: SqlClient,
): Promise<{ id: number; seq: number; data: ChunkedCheckpointData }> {
  const { rows } = await client.query<Row>(
    "select id, seq, data from ledger_entries where stream = $1 and kind = $2 order by seq desc limit 1",
    [SYSTEM_STREAM, CHECKPOINT_KIND],
  );
  const row = rows[0];
  if (!row) throw new Error("no checkpoint");
  return { id: Number(row.id), seq: Number(row.seq), data: row.data as ChunkedCheckpointData };
}

/**
 * Rewrites the heads of chunk `index` of the latest checkpoint with `edit`, and everything
 * above it to match (the entries' own hashes are left, so the system chain breaks there).
 * Runs with triggers off (session_replication_role = replica).
 */
export async function forgeChunk(
  client: SqlClient,
  index: number,
  edit: (heads: StreamHead[]) => StreamHead[],
): Promise<void> {
  const cp = await latestChunked(client);
  const ref = cp.data.chunks[index];
  if (!ref) throw new Error(`no chunk ${index}`);
  const { rows } = await client.query<Row>(
    "select id, seq, data from ledger_entries where stream = $1 and seq = $2",
    [SYSTEM_STREAM, ref.seq],
  );
  const chunk = rows[0]?.data as HeadsChunkData;
  const heads = edit(chunk.heads);
  const digest = chunkDigest(heads);
  const first = heads[0]?.stream ?? "";
  const last = heads[heads.length - 1]?.stream ?? "";
  await client.query("update ledger_entries set data = $2 where id = $1", [
    rows[0]?.id,
    JSON.stringify({ ...chunk, heads, digest, first, last, count: heads.length }),
  ]);
  const chunks = cp.data.chunks.map((c, i) =>
    i === index ? { ...c, digest, first, last, count: heads.length } : c,
  );
  const root = chunksRoot(chunks);
  const streams = chunks.reduce((n, c) => n + c.count, 0);
  await client.query("update ledger_entries set data = $2 where id = $1", [
    cp.id,
    JSON.stringify({
      ...cp.data,
      chunks,
      digest: root,
      statement: { ...cp.data.statement, digest: root, streams },
    }),
  ]);
}
