// Appends a checkpoint to the system stream: every stream head, in ledger.checkpoint_heads
// entries of at most HEADS_PER_CHUNK streams read in pages in byte order (never the whole list
// in memory), then the ledger.checkpoint entry listing the chunks, one root digest over that
// list, and a statement {seq, at, digest, streams} signed with the ledger key when one is
// configured. It refuses to sign over a ledger that no longer extends the previous checkpoint
// (or the statement the caller kept outside), so a scheduled run never launders a deleted
// stream; that check too reads the previous checkpoint a chunk at a time.
import type { KeyObject } from "node:crypto";
import type pg from "pg";
import { type SqlClient, withTransaction } from "../../../db/client";
import {
  CHECKPOINT_HEADS_KIND,
  CHECKPOINT_KIND,
  CHECKPOINT_STATEMENT_TYPE,
  type CheckpointExport,
  type CheckpointStatement,
  type ChunkedCheckpointData,
  type ChunkRef,
  chunkDigest,
  chunkListProblem,
  chunksRoot,
  HEADS_PER_CHUNK,
  type HeadsChunkData,
  headsDigest,
  type ParsedCheckpoint,
  parseCheckpointData,
  type StreamHead,
  statementText,
} from "../../domain/checkpoint";
import { appendLedger, SYSTEM_STREAM } from "../ledger/append-ledger";
import { detachedMonthsOf } from "../ledger/archive-detach";
import { readHeadsChunk } from "../ledger/checkpoint-chunks";
import { keyId, rawPublicKey, signText, verifyText } from "../ledger/signing";
import { failedClaims } from "../ledger/verify-claims";

/** The ledger lost or rewrote something an earlier checkpoint recorded: not signed over. */
export class CheckpointRefused extends Error {
  override name = "CheckpointRefused";
}

export type CheckpointResult = {
  seq: number;
  streams: number;
  /** How many ledger.checkpoint_heads entries were appended before it. */
  chunks: number;
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
  /** Streams per heads chunk (HEADS_PER_CHUNK); smaller in tests. */
  chunkSize?: number;
};

export async function writeCheckpoint(
  pool: pg.Pool,
  opts: CheckpointOptions,
): Promise<CheckpointResult> {
  return withTransaction(pool, (client) => writeCheckpointIn(client, opts));
}

type HeadRow = { stream: string; head_seq: number; head_hash: string };

/** The same, inside a transaction the caller holds. */
export async function writeCheckpointIn(
  client: SqlClient,
  opts: CheckpointOptions,
): Promise<CheckpointResult> {
  const chunkSize = opts.chunkSize ?? HEADS_PER_CHUNK;
  // The chunks and the statement name the seqs their entries will get, so hold the system head
  // until the checkpoint is appended. The system stream is recorded as it was here, just
  // before the first chunk.
  const locked = await client.query<{ head_seq: number; head_hash: string }>(
    "select head_seq, head_hash from ledger_streams where stream = $1 for update",
    [SYSTEM_STREAM],
  );
  const system = locked.rows[0];
  const before = Number(system?.head_seq ?? 0);
  await assertExtendsLatest(client, opts.signingKey);
  if (opts.previous) await assertExtendsStatement(client, opts.previous);

  const chunks: ChunkRef[] = [];
  let after: string | null = null;
  for (;;) {
    // Byte order (collate "C", with its own index): the order every reader merges in,
    // whatever the database's default collation.
    const { rows }: { rows: HeadRow[] } = await client.query(
      `select stream, head_seq, head_hash from ledger_streams
        where head_seq > 0 and ($1::text is null or stream collate "C" > $1)
        order by stream collate "C" limit $2`,
      [after, chunkSize],
    );
    if (rows.length === 0) break;
    after = (rows[rows.length - 1] as HeadRow).stream;
    const heads: StreamHead[] = [];
    for (const r of rows) {
      if (r.stream !== SYSTEM_STREAM) {
        heads.push({ stream: r.stream, seq: Number(r.head_seq), hash: r.head_hash });
      } else if (system && before > 0) {
        heads.push({ stream: r.stream, seq: before, hash: system.head_hash });
      }
    }
    if (heads.length > 0)
      chunks.push(await appendChunk(client, opts.actor, chunks.length, heads, before));
    if (rows.length < chunkSize) break;
  }

  const seq = before + chunks.length + 1;
  const digest = chunksRoot(chunks);
  const streams = chunks.reduce((n, c) => n + c.count, 0);
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
    streams,
    ...(opts.signingKey ? { keyId: keyId(opts.signingKey) } : {}),
  };
  const exported: CheckpointExport = { statement };
  if (opts.signingKey) {
    exported.algorithm = "ed25519";
    exported.publicKey = rawPublicKey(opts.signingKey);
    exported.signature = signText(opts.signingKey, statementText(statement));
  }
  const data: ChunkedCheckpointData = { chunks, digest, ...exported };
  const [entry] = await appendLedger(client, SYSTEM_STREAM, {
    kind: CHECKPOINT_KIND,
    actor: opts.actor,
    data,
  });
  if (entry?.seq !== seq) throw moved(seq, entry?.seq);
  return {
    seq,
    streams,
    chunks: chunks.length,
    digest,
    signed: !!opts.signingKey,
    export: exported,
  };
}

async function appendChunk(
  client: SqlClient,
  actor: string,
  index: number,
  heads: StreamHead[],
  before: number,
): Promise<ChunkRef> {
  const first = (heads[0] as StreamHead).stream;
  const last = (heads[heads.length - 1] as StreamHead).stream;
  const digest = chunkDigest(heads);
  const data: HeadsChunkData = { index, first, last, count: heads.length, heads, digest };
  const [entry] = await appendLedger(client, SYSTEM_STREAM, {
    kind: CHECKPOINT_HEADS_KIND,
    actor,
    data,
  });
  const seq = before + index + 1;
  if (entry?.seq !== seq) throw moved(seq, entry?.seq);
  return { seq, first, last, count: heads.length, digest };
}

/**
 * Only when the system stream did not exist yet can another writer have taken a seq (there
 * was no row to lock); a chunk or statement naming the wrong seq would never verify.
 */
function moved(expected: number, got: number | undefined): Error {
  return new Error(
    `the system stream moved while the checkpoint was written (expected seq ${expected}, got ${got}); run it again`,
  );
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
  const parsed = parseCheckpointData(row?.data);
  if (!row || row.kind !== CHECKPOINT_KIND || parsed?.data.digest !== statement.digest) {
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
  const parsed = parseCheckpointData(row.data);
  if (!parsed || !intact(parsed, Number(row.seq))) throw refuse("is malformed");
  const { statement, signature } = parsed.data;
  if (signingKey && statement?.keyId === keyId(signingKey)) {
    const valid =
      signature !== undefined && verifyText(signingKey, statementText(statement), signature);
    if (!valid || statement.seq !== Number(row.seq) || statement.digest !== parsed.data.digest) {
      throw refuse("does not verify with this key");
    }
  }
  const gone = (h: StreamHead) =>
    refuse(`recorded ${h.stream} at seq ${h.seq}, which is gone or rewritten`);
  // Streams archived, then detached with their month, are not gone: their archive holds them.
  const detached = await detachedMonthsOf(client);
  if (parsed.format === "heads") {
    const missing = await firstMissingHead(client, detached, JSON.stringify(parsed.data.streams));
    if (missing) throw gone(missing);
    return;
  }
  // One chunk at a time: each is checked against the list, then its heads against the ledger
  // in PostgreSQL, from the stored entry (append-only, and just read in this transaction).
  for (const [index, ref] of parsed.data.chunks.entries()) {
    const read = await readHeadsChunk(client, ref, index);
    if (!read.ok) throw refuse(`is damaged: ${read.problem}`);
    const missing = await firstMissingHead(client, detached, null, read.id);
    if (missing) throw gone(missing);
  }
}

/** Its own digest holds (the chunks' contents are checked as they are read). */
function intact(parsed: ParsedCheckpoint, seq: number): boolean {
  if (parsed.format === "heads") return headsDigest(parsed.data.streams) === parsed.data.digest;
  const { chunks, digest, statement } = parsed.data;
  return chunksRoot(chunks) === digest && chunkListProblem(chunks, seq, statement.streams) === null;
}

/** The first head whose entry is gone or differs (a detached archived stream's excepted). */
async function firstMissingHead(
  client: SqlClient,
  detached: readonly string[],
  heads: string | null,
  chunkId?: number,
): Promise<StreamHead | undefined> {
  const [r] = await failedClaims(client, heads, chunkId ?? null, detached, 1);
  return r ? { stream: r.stream, seq: Number(r.seq), hash: r.hash } : undefined;
}
