// Appends a checkpoint to the system stream: every stream head, a digest over them, and a
// statement {seq, at, digest, streams} signed with the ledger key when one is configured.
import type { KeyObject } from "node:crypto";
import type pg from "pg";
import { type SqlClient, withTransaction } from "../../../db/client";
import {
  CHECKPOINT_KIND,
  CHECKPOINT_STATEMENT_TYPE,
  type CheckpointData,
  type CheckpointExport,
  type CheckpointStatement,
  headsDigest,
  statementText,
} from "../../domain/checkpoint";
import { appendLedger, SYSTEM_STREAM } from "../ledger/append-ledger";
import { keyId, rawPublicKey, signText } from "../ledger/signing";

export type CheckpointResult = {
  seq: number;
  streams: number;
  digest: string;
  signed: boolean;
  /** What to keep outside the database (`checkpoint --export`, `verify --expect`). */
  export: CheckpointExport;
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
  // The statement names the seq the entry will get, so hold the system head until it is
  // appended. The heads read after the lock include the system stream at exactly seq - 1.
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
  // The database clock, as the entry's own `at` is; taken last so it is at most a moment
  // before that `at` (verify allows a minute).
  const clock = await client.query<{ now: Date }>(
    "select date_trunc('milliseconds', clock_timestamp()) as now",
  );
  const now = clock.rows[0]?.now ?? new Date();
  const statement: CheckpointStatement = {
    type: CHECKPOINT_STATEMENT_TYPE,
    seq,
    at: now.toISOString(),
    digest,
    streams: streams.length,
    ...(opts.signingKey ? { keyId: keyId(opts.signingKey) } : {}),
  };
  const exported: CheckpointExport = { statement };
  if (opts.signingKey) {
    exported.algorithm = "ed25519";
    exported.publicKey = rawPublicKey(opts.signingKey);
    exported.signature = signText(opts.signingKey, statementText(statement));
  }
  const data: CheckpointData = { streams, digest, ...exported };
  const [entry] = await appendLedger(client, SYSTEM_STREAM, {
    kind: CHECKPOINT_KIND,
    actor: opts.actor,
    data,
  });
  // Only when the system stream did not exist yet can another writer have taken this seq
  // (there was no row to lock); a statement naming the wrong seq would never verify.
  if (entry?.seq !== seq) {
    throw new Error(
      `the system stream moved while the checkpoint was written (expected seq ${seq}, got ${entry?.seq}); run it again`,
    );
  }
  return { seq, streams: streams.length, digest, signed: !!opts.signingKey, export: exported };
}
