// verifyLedger recomputes every hash chain from the stored entries and names the first broken
// entry of each stream. Checkpoints (verify-checkpoint.ts) catch what a chain alone cannot: a
// stream deleted whole, a tail cut off with its head, a history rewritten with fresh hashes.
import type { KeyObject } from "node:crypto";
import type { SqlClient } from "../../../db/client";
import { entryHash, GENESIS_HASH } from "../../domain/hash";
import type { JsonValue } from "../../domain/json";
import {
  type CheckpointSummary,
  type Claims,
  checkExpectedCheckpoint,
  checkLatestCheckpoint,
  checkSystemEvidence,
  type ExpectedCheckpoint,
  type ExpectedSummary,
  type LedgerProblem,
  type LedgerProblemKind,
  type Sink,
} from "./verify-checkpoint";

export type { ExpectedCheckpoint, LedgerProblem, LedgerProblemKind } from "./verify-checkpoint";

export const DEFAULT_CHECKPOINT_MAX_AGE_HOURS = 25;

export type VerifyReport = {
  ok: boolean;
  streams: number;
  entries: number;
  problems: LedgerProblem[];
  /** Worth knowing, not a failure (e.g. no checkpoint yet when no key is configured). */
  warnings: string[];
  checkpoint: CheckpointSummary | null;
  /** Present with `expect`: the checkpoint kept outside the database, and whether it was found. */
  expected?: ExpectedSummary;
};

export type VerifyOptions = {
  /** With a key, the latest checkpoint must be signed with it and be recent. */
  publicKey?: KeyObject;
  /** How old the latest signed checkpoint may be (default 25 h). */
  maxCheckpointAgeHours?: number;
  /** A checkpoint kept outside the database that the ledger must still contain and extend. */
  expect?: ExpectedCheckpoint;
  /** The clock checkpoint ages are measured against. */
  now?: Date;
  batchSize?: number;
  onProgress?: (entries: number) => void;
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
  opts: VerifyOptions = {},
): Promise<VerifyReport> {
  const batchSize = opts.batchSize ?? 5000;
  const problems: LedgerProblem[] = [];
  const brokenStreams = new Set<string>();
  const report = (p: LedgerProblem) => {
    if (brokenStreams.has(p.stream)) return;
    brokenStreams.add(p.stream);
    problems.push(p);
  };

  const warnings: string[] = [];
  const claims: Claims = new Map();
  const sink: Sink = { problem: (p) => problems.push(p), warn: (w) => warnings.push(w), claims };
  const policy = {
    publicKey: opts.publicKey,
    maxAgeHours: opts.maxCheckpointAgeHours ?? DEFAULT_CHECKPOINT_MAX_AGE_HOURS,
    now: opts.now ?? new Date(),
  };
  const checkpoint = await checkLatestCheckpoint(client, policy, sink);
  const expected = opts.expect
    ? await checkExpectedCheckpoint(client, opts.expect, policy, sink)
    : undefined;

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
    for (const claim of claims.get(c.stream) ?? []) {
      if (!claim.seen && !brokenStreams.has(c.stream)) {
        report({
          stream: c.stream,
          seq: claim.seq,
          entryId: null,
          problem: "missing_entries",
          message: `${claim.source} recorded ${c.stream} at seq ${claim.seq}, but the stream ends at seq ${lastSeq}`,
        });
      }
      claim.seen = true;
    }
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
    for (const claim of claims.get(s.stream) ?? []) claim.seen = true;
  }

  for (const [stream, list] of claims) {
    const claim = list.find((c) => !c.seen);
    if (!claim) continue;
    report({
      stream,
      seq: claim.seq,
      entryId: null,
      problem: "missing_stream",
      message: `stream ${stream} (seq ${claim.seq} in ${claim.source}) is gone: no entries and no head`,
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

  await checkSystemEvidence(client, report);

  problems.sort((a, b) => (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0));
  return {
    ok: problems.length === 0,
    streams,
    entries,
    problems,
    warnings,
    checkpoint,
    ...(expected ? { expected } : {}),
  };
}

function checkEntry(
  cur: StreamCursor,
  row: EntryRow,
  seq: number,
  claims: Claims,
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
  for (const claim of claims.get(row.stream) ?? []) {
    if (claim.seq !== seq) continue;
    claim.seen = true;
    if (claim.hash !== row.hash && !cur.broken) {
      fail(
        "checkpoint_mismatch",
        `${row.stream} seq ${seq} hashes to ${short(row.hash)}, but ${claim.source} recorded ${short(claim.hash)}: the stream was rewritten`,
      );
    }
  }
}
