// verifyLedger recomputes every hash chain from the stored entries and names the first broken
// entry of each stream. The latest checkpoint (signature checked when a key is configured)
// catches what a chain alone cannot: a stream deleted whole, or a tail cut off with its head.
import type { KeyObject } from "node:crypto";
import type { SqlClient } from "../../../db/client";
import { CHECKPOINT_KIND, checkpointDataSchema, headsDigest } from "../../domain/checkpoint";
import { entryHash, GENESIS_HASH } from "../../domain/hash";
import type { JsonValue } from "../../domain/json";
import { SYSTEM_STREAM } from "./append-ledger";
import { verifyDigest } from "./signing";

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
  | "unsigned_checkpoint";

export type LedgerProblem = {
  stream: string;
  seq: number | null;
  entryId: number | null;
  problem: LedgerProblemKind;
  message: string;
};

export type VerifyReport = {
  ok: boolean;
  streams: number;
  entries: number;
  problems: LedgerProblem[];
  checkpoint: null | {
    entryId: number;
    seq: number;
    at: string;
    streams: number;
    signed: boolean;
    signatureChecked: boolean;
  };
};

/** A ledger_entries row as pg returns it (snake_case columns). */
export type EntryRow = {
  id: number;
  stream: string;
  seq: number;
  at: Date;
  kind: string;
  actor: string;
  task_id: string | null;
  key: string | null;
  data: JsonValue;
  prev_hash: string;
  hash: string;
};

/** Recomputes an entry's hash from its stored columns, chained on `prevHash`. */
export function rowHash(
  prevHash: string,
  row: Pick<EntryRow, "stream" | "seq" | "at" | "kind" | "actor" | "task_id" | "key" | "data">,
): string {
  return entryHash(prevHash, {
    stream: row.stream,
    seq: Number(row.seq),
    at: row.at.toISOString(),
    kind: row.kind,
    actor: row.actor,
    taskId: row.task_id,
    key: row.key,
    data: row.data,
  });
}

type StreamCursor = {
  stream: string;
  expectedSeq: number;
  prevHash: string;
  lastId: number | null;
  broken: boolean;
};

const short = (h: string) => `${h.slice(0, 12)}…`;

export async function verifyLedger(
  client: SqlClient,
  opts: { publicKey?: KeyObject; batchSize?: number; onProgress?: (entries: number) => void } = {},
): Promise<VerifyReport> {
  const batchSize = opts.batchSize ?? 5000;
  const problems: LedgerProblem[] = [];
  const brokenStreams = new Set<string>();
  const report = (p: LedgerProblem) => {
    if (brokenStreams.has(p.stream)) return;
    brokenStreams.add(p.stream);
    problems.push(p);
  };

  const { checkpoint, claims } = await loadCheckpoint(client, opts.publicKey, report);

  let entries = 0;
  let streams = 0;
  let cur: StreamCursor | undefined;
  const heads = new Map<string, { seq: number; hash: string }>();

  const finish = (c: StreamCursor) => {
    const head = heads.get(c.stream);
    const lastSeq = c.expectedSeq - 1;
    if (!c.broken && !head) {
      report({
        stream: c.stream,
        seq: null,
        entryId: null,
        problem: "missing_head",
        message: `stream ${c.stream} has entries but no head row`,
      });
    } else if (!c.broken && head && (head.seq !== lastSeq || head.hash !== c.prevHash)) {
      report({
        stream: c.stream,
        seq: lastSeq + 1,
        entryId: null,
        problem: head.seq > lastSeq ? "missing_entries" : "head_mismatch",
        message:
          head.seq > lastSeq
            ? `entries ${lastSeq + 1}..${head.seq} of ${c.stream} are missing: the stream head says seq ${head.seq}, the last entry is seq ${lastSeq}`
            : `head of ${c.stream} says seq ${head.seq} hash ${short(head.hash)}, the last entry is seq ${lastSeq} hash ${short(c.prevHash)}`,
      });
    }
    const claim = claims.get(c.stream);
    if (claim && !claim.seen && !brokenStreams.has(c.stream)) {
      report({
        stream: c.stream,
        seq: claim.seq,
        entryId: null,
        problem: "missing_entries",
        message: `the checkpoint recorded ${c.stream} at seq ${claim.seq}, but the stream ends at seq ${lastSeq}`,
      });
    }
    if (claim) claim.seen = true;
  };

  let after: [string, number] | undefined;
  while (true) {
    const { rows } = await client.query<EntryRow>(
      after
        ? `select id, stream, seq, at, kind, actor, task_id, key, data, prev_hash, hash from ledger_entries
           where (stream, seq) > ($1, $2) order by stream, seq limit $3`
        : `select id, stream, seq, at, kind, actor, task_id, key, data, prev_hash, hash from ledger_entries
           order by stream, seq limit $1`,
      after ? [after[0], after[1], batchSize] : [batchSize],
    );
    if (rows.length === 0) break;
    const newStreams = [...new Set(rows.map((r) => r.stream))].filter((s) => !heads.has(s));
    const headRows = await client.query<{ stream: string; head_seq: number; head_hash: string }>(
      "select stream, head_seq, head_hash from ledger_streams where stream = any($1::text[])",
      [newStreams],
    );
    for (const h of headRows.rows)
      heads.set(h.stream, { seq: Number(h.head_seq), hash: h.head_hash });

    for (const row of rows) {
      const seq = Number(row.seq);
      if (!cur || cur.stream !== row.stream) {
        if (cur) finish(cur);
        streams += 1;
        cur = {
          stream: row.stream,
          expectedSeq: 1,
          prevHash: GENESIS_HASH,
          lastId: null,
          broken: false,
        };
      }
      entries += 1;
      checkEntry(cur, row, seq, claims, report);
      cur.expectedSeq = seq + 1;
      cur.prevHash = row.hash;
      cur.lastId = Number(row.id);
    }
    const last = rows[rows.length - 1] as EntryRow;
    after = [last.stream, Number(last.seq)];
    opts.onProgress?.(entries);
    if (rows.length < batchSize) break;
  }
  if (cur) finish(cur);

  const empty = await client.query<{ stream: string; head_seq: number }>(
    `select s.stream, s.head_seq from ledger_streams s
     where s.head_seq > 0 and not exists (select 1 from ledger_entries e where e.stream = s.stream)
     order by s.stream limit 1000`,
  );
  for (const s of empty.rows) {
    streams += 1;
    report({
      stream: s.stream,
      seq: 1,
      entryId: null,
      problem: "missing_stream",
      message: `all ${s.head_seq} entries of ${s.stream} are missing (its head row remains)`,
    });
    const claim = claims.get(s.stream);
    if (claim) claim.seen = true;
  }

  for (const [stream, claim] of claims) {
    if (claim.seen) continue;
    report({
      stream,
      seq: claim.seq,
      entryId: null,
      problem: "missing_stream",
      message: `stream ${stream} (seq ${claim.seq} at the last checkpoint) is gone: no entries and no head`,
    });
  }

  // Every task opens its stream with task.enqueued, so a task without a stream lost its history.
  const orphans = await client.query<{ id: string }>(
    `select t.id from tasks t
     where not exists (select 1 from ledger_streams s where s.stream = 'task:' || t.id::text)
     order by t.created_at limit 1000`,
  );
  for (const t of orphans.rows) {
    report({
      stream: `task:${t.id}`,
      seq: 1,
      entryId: null,
      problem: "missing_stream",
      message: `task ${t.id} exists but its ledger stream is gone`,
    });
  }

  problems.sort((a, b) => (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0));
  return { ok: problems.length === 0, streams, entries, problems, checkpoint };
}

function checkEntry(
  cur: StreamCursor,
  row: EntryRow,
  seq: number,
  claims: Map<string, Claim>,
  report: (p: LedgerProblem) => void,
): void {
  if (cur.broken) return;
  const at = { stream: row.stream, seq, entryId: Number(row.id) };
  const fail = (problem: LedgerProblemKind, message: string) => {
    cur.broken = true;
    report({ ...at, problem, message });
  };
  if (seq !== cur.expectedSeq) {
    // Name the first missing seq; entryId is the entry where the gap shows.
    at.seq = cur.expectedSeq;
    fail(
      "seq_gap",
      `${row.stream} jumps from seq ${cur.expectedSeq - 1} to seq ${seq}: entries ${cur.expectedSeq}..${seq - 1} are missing`,
    );
    return;
  }
  if (row.prev_hash !== cur.prevHash) {
    fail(
      "prev_hash_mismatch",
      `${row.stream} seq ${seq} points back to ${short(row.prev_hash)}, but the entry before it hashes to ${short(cur.prevHash)}`,
    );
    return;
  }
  const recomputed = rowHash(row.prev_hash, row);
  if (recomputed !== row.hash) {
    fail(
      "hash_mismatch",
      `${row.stream} seq ${seq} (${row.kind}) was altered: stored hash ${short(row.hash)}, recomputed ${short(recomputed)}`,
    );
    return;
  }
  const claim = claims.get(row.stream);
  if (claim && claim.seq === seq) {
    claim.seen = true;
    if (claim.hash !== row.hash) {
      fail(
        "checkpoint_mismatch",
        `${row.stream} seq ${seq} hashes to ${short(row.hash)}, but the checkpoint recorded ${short(claim.hash)}: the stream was rewritten`,
      );
    }
  }
}

type Claim = { seq: number; hash: string; seen: boolean };

async function loadCheckpoint(
  client: SqlClient,
  publicKey: KeyObject | undefined,
  report: (p: LedgerProblem) => void,
): Promise<{ checkpoint: VerifyReport["checkpoint"]; claims: Map<string, Claim> }> {
  const claims = new Map<string, Claim>();
  const { rows } = await client.query<{ id: number; seq: number; at: Date; data: unknown }>(
    `select id, seq, at, data from ledger_entries
     where stream = $1 and kind = $2 order by seq desc limit 1`,
    [SYSTEM_STREAM, CHECKPOINT_KIND],
  );
  const row = rows[0];
  if (!row) return { checkpoint: null, claims };
  const base = { stream: SYSTEM_STREAM, seq: Number(row.seq), entryId: Number(row.id) };
  const parsed = checkpointDataSchema.safeParse(row.data);
  if (!parsed.success) {
    report({ ...base, problem: "bad_checkpoint", message: "the latest checkpoint is malformed" });
    return { checkpoint: null, claims };
  }
  const data = parsed.data;
  const checkpoint = {
    entryId: Number(row.id),
    seq: Number(row.seq),
    at: row.at.toISOString(),
    streams: data.streams.length,
    signed: data.signature !== undefined,
    signatureChecked: false,
  };
  if (headsDigest(data.streams) !== data.digest) {
    report({
      ...base,
      problem: "bad_checkpoint",
      message: `checkpoint at system seq ${row.seq}: its stream list does not match its digest`,
    });
    return { checkpoint, claims };
  }
  if (publicKey) {
    if (data.signature === undefined) {
      report({
        ...base,
        problem: "unsigned_checkpoint",
        message: `checkpoint at system seq ${row.seq} is not signed, but a ledger key is configured`,
      });
    } else if (!verifyDigest(publicKey, data.digest, data.signature)) {
      report({
        ...base,
        problem: "bad_signature",
        message: `checkpoint at system seq ${row.seq}: the signature does not verify with the configured key`,
      });
      return { checkpoint, claims };
    } else {
      checkpoint.signatureChecked = true;
    }
  }
  for (const h of data.streams) claims.set(h.stream, { seq: h.seq, hash: h.hash, seen: false });
  return { checkpoint, claims };
}
