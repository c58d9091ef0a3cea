// Appends a checkpoint to the system stream: every stream head and a digest over them,
// signed with the ledger key when one is configured.
import type { KeyObject } from "node:crypto";
import type pg from "pg";
import { type SqlClient, withTransaction } from "../../../db/client";
import { CHECKPOINT_KIND, type CheckpointData, headsDigest } from "../../domain/checkpoint";
import { appendLedger, SYSTEM_STREAM } from "../ledger/append-ledger";
import { rawPublicKey, signDigest } from "../ledger/signing";

export type CheckpointResult = {
  seq: number;
  streams: number;
  digest: string;
  signed: boolean;
};

export type CheckpointOptions = { actor: string; signingKey?: KeyObject };

export async function writeCheckpoint(
  pool: pg.Pool,
  opts: CheckpointOptions,
): Promise<CheckpointResult> {
  return withTransaction(pool, (client) => writeCheckpointIn(client, opts));
}

/** The same, inside a transaction the caller holds. */
export async function writeCheckpointIn(
  client: SqlClient,
  opts: CheckpointOptions,
): Promise<CheckpointResult> {
  const { rows } = await client.query<{ stream: string; head_seq: number; head_hash: string }>(
    "select stream, head_seq, head_hash from ledger_streams where head_seq > 0 order by stream",
  );
  const streams = rows.map((r) => ({
    stream: r.stream,
    seq: Number(r.head_seq),
    hash: r.head_hash,
  }));
  const digest = headsDigest(streams);
  const data: CheckpointData = { streams, digest };
  if (opts.signingKey) {
    data.algorithm = "ed25519";
    data.publicKey = rawPublicKey(opts.signingKey);
    data.signature = signDigest(opts.signingKey, digest);
  }
  const [entry] = await appendLedger(client, SYSTEM_STREAM, {
    kind: CHECKPOINT_KIND,
    actor: opts.actor,
    data,
  });
  return { seq: entry?.seq ?? 0, streams: streams.length, digest, signed: !!opts.signingKey };
}
