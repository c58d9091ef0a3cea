// Appends a checkpoint to the system stream: every stream head, a digest over them, and a
// statement {seq, at, digest, streams} signed with the ledger key when one is configured.
// It refuses to sign over a ledger that no longer extends the previous checkpoint (or the
// statement the caller kept outside), so a scheduled run never launders a deleted stream.
import type { KeyObject } from "node:crypto";
import type pg from "pg";
import { type SqlClient, withTransaction } from "../../../db/client";
import {
  CHECKPOINT_KIND,
  CHECKPOINT_STATEMENT_TYPE,
  type CheckpointData,
  type CheckpointExport,
  type CheckpointStatement,
  checkpointDataSchema,
  headsDigest,
  type StreamHead,
  statementText,
} from "../../domain/checkpoint";
import { appendLedger, SYSTEM_STREAM } from "../ledger/append-ledger";
import { keyId, rawPublicKey, signText, verifyText } from "../ledger/signing";

/** The ledger lost or rewrote something an earlier checkpoint recorded: not signed over. */
export class CheckpointRefused extends Error {
  override name = "CheckpointRefused";
}

export type CheckpointResult = {
  seq: number;
  streams: number;
  digest: string;
  signed: boolean;
  /** What to keep outside the database (`checkpoint --export`, `verify --expect`). */
  export: CheckpointExport;
};

export type CheckpointOptions = {
  actor: string;
  signingKey?: KeyObject;
  /** A statement shipped earlier (the last `--export`): the ledger must still extend it. */
  previous?: CheckpointStatement;
};

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
  await assertExtendsLatest(client, opts.signingKey);
  if (opts.previous) await assertExtendsStatement(client, opts.previous);
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

type CheckpointRow = { seq: number; kind: string; data: unknown };

async function assertExtendsLatest(client: SqlClient, signingKey?: KeyObject): Promise<void> {
  const { rows } = await client.query<CheckpointRow>(
    `select seq, kind, data from ledger_entries
     where stream = $1 and kind = $2 order by seq desc limit 1`,
    [SYSTEM_STREAM, CHECKPOINT_KIND],
  );
  const row = rows[0];
  if (row)
    await assertExtends(client, row, `the previous checkpoint (system seq ${row.seq})`, signingKey);
}

async function assertExtendsStatement(
  client: SqlClient,
  statement: CheckpointStatement,
): Promise<void> {
  const what = `the checkpoint last exported (system seq ${statement.seq}, ${statement.at})`;
  const { rows } = await client.query<CheckpointRow>(
    "select seq, kind, data from ledger_entries where stream = $1 and seq = $2",
    [SYSTEM_STREAM, statement.seq],
  );
  const row = rows[0];
  const data = checkpointDataSchema.safeParse(row?.data);
  if (!row || row.kind !== CHECKPOINT_KIND || data.data?.digest !== statement.digest) {
    throw new CheckpointRefused(`${what} is no longer in the ledger; run agent-ledger verify`);
  }
  await assertExtends(client, row, what);
}

/** The checkpoint is intact (its signature, when it is ours) and every head it lists is still there. */
async function assertExtends(
  client: SqlClient,
  row: CheckpointRow,
  what: string,
  signingKey?: KeyObject,
): Promise<void> {
  const refuse = (why: string) => new CheckpointRefused(`${what} ${why}; run agent-ledger verify`);
  const parsed = checkpointDataSchema.safeParse(row.data);
  if (!parsed.success || headsDigest(parsed.data.streams) !== parsed.data.digest) {
    throw refuse("is malformed");
  }
  const { statement, signature, streams } = parsed.data;
  if (signingKey && statement?.keyId === keyId(signingKey)) {
    const valid =
      signature !== undefined && verifyText(signingKey, statementText(statement), signature);
    if (!valid || statement.seq !== Number(row.seq) || statement.digest !== parsed.data.digest) {
      throw refuse("does not verify with this key");
    }
  }
  const missing = await firstMissingHead(client, streams);
  if (missing)
    throw refuse(`recorded ${missing.stream} at seq ${missing.seq}, which is gone or rewritten`);
}

/** One indexed lookup per head, in one statement: the first head whose entry is gone or differs. */
async function firstMissingHead(
  client: SqlClient,
  heads: readonly StreamHead[],
): Promise<StreamHead | undefined> {
  const { rows } = await client.query<{ stream: string; seq: number; hash: string }>(
    `select p.stream, p.seq, p.hash
     from jsonb_to_recordset($1::jsonb) as p(stream text, seq bigint, hash text)
     left join ledger_entries e on e.stream = p.stream and e.seq = p.seq
     where e.hash is distinct from p.hash
     order by p.stream limit 1`,
    [JSON.stringify(heads)],
  );
  const r = rows[0];
  return r ? { stream: r.stream, seq: Number(r.seq), hash: r.hash } : undefined;
}
