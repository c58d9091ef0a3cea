// The checks a chain alone cannot make: the latest checkpoint (its signature, its position and
// age), a checkpoint the operator kept outside the database (`verify --expect`), and the system
// stream's own evidence (users and tokens whose creation it recorded). Each checkpoint becomes
// a claim source — "stream S had hash H at seq N", a chunk at a time for a chunked one — that
// the walks in verify-ledger.ts and verify-from-checkpoint.ts check.
import type { KeyObject } from "node:crypto";
import type { SqlClient } from "../../../db/client";
import {
  CHECKPOINT_KIND,
  CHECKPOINT_STATEMENT_TYPE,
  CHECKPOINT_STATEMENT_TYPE_V2,
  type CheckpointStatement,
  chunkFor,
  chunkListProblem,
  chunksRoot,
  headsDigest,
  type ParsedCheckpoint,
  parseCheckpointData,
  statementText,
} from "../../domain/checkpoint";
import { SYSTEM_STREAM } from "./append-ledger";
import { type ClaimSource, readHeadsChunk } from "./checkpoint-chunks";
import { keyId, verifyText } from "./signing";

export type LedgerProblemKind =
  | "hash_mismatch"
  | "prev_hash_mismatch"
  | "seq_gap"
  | "head_mismatch"
  | "missing_head"
  | "missing_entries"
  | "missing_stream"
  | "checkpoint_mismatch"
  | "bad_checkpoint"
  | "bad_signature"
  | "unsigned_checkpoint"
  | "no_checkpoint"
  | "stale_checkpoint"
  | "legacy_checkpoint"
  | "expected_checkpoint_missing"
  | "unrecorded_archive";

export type LedgerProblem = {
  stream: string;
  seq: number | null;
  entryId: number | null;
  problem: LedgerProblemKind;
  message: string;
};

/** "`stream` had `hash` at `seq`", as a checkpoint (`source`) recorded it. */
export type Claim = { seq: number; hash: string; seen: boolean; source: string };
export type Claims = Map<string, Claim[]>;

export type CheckpointPolicy = {
  /** With a key, a signed checkpoint no older than `maxAgeHours` is required. */
  publicKey?: KeyObject;
  maxAgeHours: number;
  now: Date;
};

export type CheckpointSummary = {
  entryId: number;
  seq: number;
  at: string;
  streams: number;
  signed: boolean;
  signatureChecked: boolean;
  /**
   * "v3": heads in chunks, digest over the chunk list. "v2": every head in the one entry.
   * "legacy": written before issue 10, its signature covers the digest alone.
   */
  format: "v3" | "v2" | "legacy";
  ageHours: number;
};

/** A checkpoint kept outside the database: its digest, or the whole exported statement. */
export type ExpectedCheckpoint = {
  digest: string;
  statement?: CheckpointStatement;
  signature?: string;
};

export type ExpectedSummary = { digest: string; seq: number | null; found: boolean };

export type Sink = {
  /** A problem with a checkpoint itself: always reported, beside any problem of the chain. */
  problem: (p: LedgerProblem) => void;
  warn: (text: string) => void;
  /** Where the walk takes its claims from, each read in byte order. */
  sources: ClaimSource[];
};

/** The signed time may precede the entry's own `at` by the moment it takes to append. */
const MAX_STATEMENT_LAG_MS = 60_000;
const HOUR_MS = 3_600_000;

const short = (h: string) => `${h.slice(0, 12)}…`;

type CheckpointRow = { id: number; seq: number; at: Date; kind: string; data: unknown };

function addClaims(sink: Sink, parsed: ParsedCheckpoint, label: string): void {
  sink.sources.push(
    parsed.format === "heads"
      ? { label, kind: "list", heads: parsed.data.streams }
      : { label, kind: "chunks", chunks: parsed.data.chunks },
  );
}

/** Its stored digest over what it holds: every head (v2), or the chunk list (v3). */
function digestHolds(parsed: ParsedCheckpoint): boolean {
  return parsed.format === "heads"
    ? headsDigest(parsed.data.streams) === parsed.data.digest
    : chunksRoot(parsed.data.chunks) === parsed.data.digest;
}

const heldCount = (parsed: ParsedCheckpoint) =>
  parsed.format === "heads" ? parsed.data.streams.length : parsed.data.statement.streams;

/**
 * The seq and hash it records for the system stream, which must be the entry just before its
 * own (v2) or just before its first chunk (v3); null when it records none. A chunked one reads
 * the one chunk whose range holds the system stream.
 */
async function systemPin(
  client: SqlClient,
  parsed: ParsedCheckpoint,
): Promise<{ seq: number | null } | { problem: string }> {
  if (parsed.format === "heads") {
    const h = parsed.data.streams.find((x) => x.stream === SYSTEM_STREAM);
    return { seq: h?.seq ?? null };
  }
  const { chunks } = parsed.data;
  const index = chunkFor(chunks, SYSTEM_STREAM);
  if (index === null) return { seq: null };
  const read = await readHeadsChunk(client, chunks[index] as (typeof chunks)[number], index);
  if (!read.ok) return { problem: read.problem };
  return { seq: read.heads.find((x) => x.stream === SYSTEM_STREAM)?.seq ?? null };
}

export async function checkLatestCheckpoint(
  client: SqlClient,
  policy: CheckpointPolicy,
  sink: Sink,
): Promise<CheckpointSummary | null> {
  const keyed = policy.publicKey !== undefined;
  const required = `with a ledger key configured, verify needs a checkpoint signed over its seq and time that is no older than ${policy.maxAgeHours} h (LEDGER_CHECKPOINT_MAX_AGE_HOURS); write one on a schedule with agent-ledger checkpoint`;
  const { rows } = await client.query<CheckpointRow>(
    `select id, seq, at, kind, data from ledger_entries
     where stream = $1 and kind = $2 order by seq desc limit 1`,
    [SYSTEM_STREAM, CHECKPOINT_KIND],
  );
  const row = rows[0];
  if (!row) {
    if (keyed) {
      sink.problem({
        stream: SYSTEM_STREAM,
        seq: null,
        entryId: null,
        problem: "no_checkpoint",
        message: `the ledger holds no checkpoint: none was written, or they were deleted; ${required}`,
      });
    } else {
      sink.warn(
        "no checkpoint yet: a stream deleted whole goes unnoticed until one is written (agent-ledger checkpoint)",
      );
    }
    return null;
  }
  const seq = Number(row.seq);
  const at = { stream: SYSTEM_STREAM, seq, entryId: Number(row.id) };
  const fail = (problem: LedgerProblemKind, message: string) =>
    sink.problem({ ...at, problem, message: `checkpoint at system seq ${seq}: ${message}` });
  const parsed = parseCheckpointData(row.data);
  if (!parsed) {
    fail("bad_checkpoint", "it is malformed");
    return null;
  }
  const data = parsed.data;
  const st = data.statement;
  const signedAt = st ? new Date(st.at) : row.at;
  const summary: CheckpointSummary = {
    entryId: Number(row.id),
    seq,
    at: signedAt.toISOString(),
    streams: heldCount(parsed),
    signed: data.signature !== undefined,
    signatureChecked: false,
    format: parsed.format === "chunks" ? "v3" : st ? "v2" : "legacy",
    ageHours: (policy.now.getTime() - signedAt.getTime()) / HOUR_MS,
  };
  const list = parsed.format === "heads" ? "stream list" : "chunk list";
  if (!digestHolds(parsed)) {
    fail("bad_checkpoint", `its ${list} does not match its digest`);
    return summary;
  }

  if (policy.publicKey && data.signature !== undefined) {
    const signedText = st ? statementText(st) : data.digest;
    const expectedKey = keyId(policy.publicKey);
    if (st && st.keyId !== expectedKey) {
      fail(
        "bad_signature",
        `it names signing key ${st.keyId ?? "(none)"}, but the configured key is ${expectedKey}`,
      );
      return summary;
    }
    if (!verifyText(policy.publicKey, signedText, data.signature)) {
      fail("bad_signature", "the signature does not verify with the configured key");
      return summary;
    }
    summary.signatureChecked = true;
  } else if (policy.publicKey) {
    fail("unsigned_checkpoint", `it is not signed; ${required}`);
  }

  if (!st) {
    if (policy.publicKey && data.signature !== undefined) {
      fail(
        "legacy_checkpoint",
        `it is signed the legacy way (over its digest only, not its seq and time), so it cannot show that it is recent; ${required}`,
      );
    } else if (!policy.publicKey) {
      sink.warn(
        `the latest checkpoint (system seq ${seq}) is in the legacy format; write a new one with agent-ledger checkpoint`,
      );
    }
    addClaims(sink, parsed, `the latest checkpoint (system seq ${seq})`);
    return summary;
  }

  // A valid statement in the wrong place is a signature moved to make a checkpoint look newer.
  if (st.seq !== seq) {
    fail("bad_checkpoint", `its statement was written for system seq ${st.seq}: it was moved`);
    return summary;
  }
  const type = parsed.format === "heads" ? CHECKPOINT_STATEMENT_TYPE_V2 : CHECKPOINT_STATEMENT_TYPE;
  if (st.type !== type || st.digest !== data.digest || st.streams !== heldCount(parsed)) {
    fail("bad_checkpoint", `its statement does not match its ${list}`);
    return summary;
  }
  const placement =
    parsed.format === "chunks" ? chunkListProblem(parsed.data.chunks, seq, st.streams) : null;
  if (placement) {
    fail("bad_checkpoint", placement);
    return summary;
  }
  const lag = row.at.getTime() - signedAt.getTime();
  if (lag < 0 || lag > MAX_STATEMENT_LAG_MS) {
    fail(
      "bad_checkpoint",
      `its entry says it was written at ${row.at.toISOString()}, its statement at ${st.at}`,
    );
    return summary;
  }
  // Every checkpoint pins the system stream up to itself (its chunks), so the system stream
  // cannot be rewound past a checkpoint that is still there.
  const pin = await systemPin(client, parsed);
  if ("problem" in pin) {
    fail("bad_checkpoint", pin.problem);
    return summary;
  }
  const before = parsed.format === "heads" ? seq - 1 : seq - parsed.data.chunks.length - 1;
  if (before > 0 ? pin.seq !== before : pin.seq !== null) {
    fail(
      "bad_checkpoint",
      `it records the system stream at seq ${pin.seq ?? "(none)"}, not at seq ${before} just before ${parsed.format === "heads" ? "itself" : "its chunks"}`,
    );
    return summary;
  }
  if (policy.publicKey && summary.signatureChecked && summary.ageHours > policy.maxAgeHours) {
    fail(
      "stale_checkpoint",
      `it was signed at ${st.at}, ${summary.ageHours.toFixed(1)} h ago: no newer checkpoint was written, or the newer ones were deleted; ${required}`,
    );
  }
  addClaims(sink, parsed, `the latest checkpoint (system seq ${seq})`);
  return summary;
}

export async function checkExpectedCheckpoint(
  client: SqlClient,
  expect: ExpectedCheckpoint,
  policy: CheckpointPolicy,
  sink: Sink,
): Promise<ExpectedSummary> {
  const st = expect.statement;
  const described = st
    ? `the checkpoint you expect (system seq ${st.seq}, ${st.at}, digest ${short(expect.digest)})`
    : `the checkpoint you expect (digest ${short(expect.digest)})`;
  const summary: ExpectedSummary = { digest: expect.digest, seq: st?.seq ?? null, found: false };
  const fail = (problem: LedgerProblemKind, message: string, seq = st?.seq ?? null) =>
    sink.problem({ stream: SYSTEM_STREAM, seq, entryId: null, problem, message });

  if (st && expect.signature !== undefined && policy.publicKey) {
    if (
      st.keyId !== keyId(policy.publicKey) ||
      !verifyText(policy.publicKey, statementText(st), expect.signature)
    ) {
      fail("bad_signature", `${described}: its signature does not verify with the configured key`);
    }
  }

  let row: CheckpointRow | undefined;
  if (st) {
    const found = await client.query<CheckpointRow>(
      "select id, seq, at, kind, data from ledger_entries where stream = $1 and seq = $2",
      [SYSTEM_STREAM, st.seq],
    );
    row = found.rows[0];
    if (!row) {
      const head = await client.query<{ last: number | null }>(
        "select max(seq) as last from ledger_entries where stream = $1",
        [SYSTEM_STREAM],
      );
      const last = Number(head.rows[0]?.last ?? 0);
      fail(
        "expected_checkpoint_missing",
        last < st.seq
          ? `${described} is gone: the system stream now ends at seq ${last}, so it went backwards`
          : `${described} is gone: system seq ${st.seq} is missing`,
      );
      return summary;
    }
  } else {
    const found = await client.query<CheckpointRow>(
      `select id, seq, at, kind, data from ledger_entries
       where stream = $1 and kind = $2 and data->>'digest' = $3 order by seq desc limit 1`,
      [SYSTEM_STREAM, CHECKPOINT_KIND, expect.digest],
    );
    row = found.rows[0];
    if (!row) {
      fail(
        "expected_checkpoint_missing",
        `${described} is not in the ledger: it was deleted, or the history was rewritten after it`,
      );
      return summary;
    }
  }

  const seq = Number(row.seq);
  summary.seq = seq;
  const parsed = parseCheckpointData(row.data);
  const data = parsed?.data;
  const sameStatement =
    !st || !data?.statement || statementText(data.statement) === statementText(st);
  if (row.kind !== CHECKPOINT_KIND || data?.digest !== expect.digest || !sameStatement) {
    fail(
      "expected_checkpoint_missing",
      `${described} is gone: system seq ${seq} is now a ${row.kind} entry${data ? ` with digest ${short(data.digest)}` : ""}, so the system stream was rewritten from there on`,
      seq,
    );
    return summary;
  }
  if (!parsed || !digestHolds(parsed)) {
    fail("bad_checkpoint", `${described}: what it lists does not match its digest`, seq);
    return summary;
  }
  const placement =
    parsed.format === "chunks"
      ? chunkListProblem(parsed.data.chunks, seq, parsed.data.statement.streams)
      : null;
  if (placement) {
    fail("bad_checkpoint", `${described}: ${placement}`, seq);
    return summary;
  }
  summary.found = true;
  addClaims(sink, parsed, `the checkpoint you expect (system seq ${seq})`);
  return summary;
}

/**
 * Users and API tokens are created only by commands that record it in the system stream, so
 * one whose creation entry is gone shows that the system stream lost entries (or all of them),
 * even where no checkpoint says so.
 */
export async function checkSystemEvidence(
  client: SqlClient,
  report: (p: LedgerProblem) => void,
): Promise<void> {
  const { rows } = await client.query<{ what: string; name: string; n: number; entries: number }>(
    `with lost as (
       select 'user' as what, u.email as name, u.created_at from users u
       where not exists (select 1 from ledger_entries e where e.stream = $1
                         and e.kind = 'user.created' and e.data->>'userId' = u.id)
       union all
       select 'API token', t.name, t.created_at from api_tokens t
       where not exists (select 1 from ledger_entries e where e.stream = $1
                         and e.kind = 'token.created' and e.data->>'tokenId' = t.id)
     )
     select what, name, (select count(*)::int from lost) as n,
            (select count(*)::int from ledger_entries where stream = $1) as entries
     from lost order by created_at limit 1`,
    [SYSTEM_STREAM],
  );
  const first = rows[0];
  if (!first) return;
  const gone = first.entries === 0;
  report({
    stream: SYSTEM_STREAM,
    seq: gone ? 1 : null,
    entryId: null,
    problem: gone ? "missing_stream" : "missing_entries",
    message: `${gone ? "the system stream is gone: " : ""}${first.n} user(s) or API token(s) exist whose creation entry is missing from the system stream (first: ${first.what} ${first.name})`,
  });
}
