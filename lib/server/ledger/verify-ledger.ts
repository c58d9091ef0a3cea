// verifyLedger recomputes every hash chain from the stored entries and names the first broken
// entry of each stream. Checkpoints (verify-checkpoint.ts) catch what a chain alone cannot: a
// stream deleted whole, a tail cut off with its head, a history rewritten with fresh hashes.
// With `from: "checkpoint"` it walks only what follows the latest checkpoint whose signature
// verifies (verify-from-checkpoint.ts); without one it says so and walks everything.
import type { KeyObject } from "node:crypto";
import type { SqlClient } from "../../../db/client";
import { SYSTEM_STREAM } from "./append-ledger";
import { detachedMonthsOf, detachedStream, unrecordedArchives } from "./archive-detach";
import {
  ChainCheck,
  ENTRY_COLUMNS,
  type EntryRow,
  type Head,
  type StreamCursor,
} from "./chain-check";
import {
  type CheckpointSummary,
  checkExpectedCheckpoint,
  checkLatestCheckpoint,
  checkSystemEvidence,
  type ExpectedCheckpoint,
  type ExpectedSummary,
  type LedgerProblem,
  type Sink,
} from "./verify-checkpoint";
import { checkClaims } from "./verify-claims";
import { walkFromCheckpoint } from "./verify-from-checkpoint";

export { type EntryRow, rowHash } from "./chain-check";
export type { ExpectedCheckpoint, LedgerProblem, LedgerProblemKind } from "./verify-checkpoint";

export const DEFAULT_CHECKPOINT_MAX_AGE_HOURS = 25;

export type VerifyReport = {
  ok: boolean;
  /**
   * `full`: every chain from its start. `checkpoint`: from the heads the latest signed
   * checkpoint recorded (what precedes them is trusted to its signature).
   */
  mode: "full" | "checkpoint";
  streams: number;
  /** Entries read and checked (from a checkpoint: each stream's checkpointed head and what follows). */
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
  /**
   * `start` (default): every chain from genesis. `checkpoint`: from the latest checkpoint whose
   * signature verifies with `publicKey`; without one, a full pass with a warning.
   */
  from?: "start" | "checkpoint";
  /** The clock checkpoint ages are measured against. */
  now?: Date;
  batchSize?: number;
  onProgress?: (entries: number) => void;
};

export async function verifyLedger(
  client: SqlClient,
  opts: VerifyOptions = {},
): Promise<VerifyReport> {
  const batchSize = opts.batchSize ?? 10_000;
  const warnings: string[] = [];
  const check = new ChainCheck(new Map());
  const sink: Sink = {
    problem: (p) => check.problems.push(p),
    warn: (w) => warnings.push(w),
    sources: [],
  };
  const policy = {
    publicKey: opts.publicKey,
    maxAgeHours: opts.maxCheckpointAgeHours ?? DEFAULT_CHECKPOINT_MAX_AGE_HOURS,
    now: opts.now ?? new Date(),
  };
  const checkpoint = await checkLatestCheckpoint(client, policy, sink);
  // Streams whose month was detached after they were archived: no entries here, by design.
  const detached = await detachedMonthsOf(client);
  // Trusted only when its signature verified and nothing but its age is wrong with it.
  const trusted =
    checkpoint?.signatureChecked === true &&
    (checkpoint.format === "v3" || checkpoint.format === "v2") &&
    check.problems.every((p) => p.problem === "stale_checkpoint");
  const expected = opts.expect
    ? await checkExpectedCheckpoint(client, opts.expect, policy, sink)
    : undefined;

  let mode: VerifyReport["mode"] = "full";
  if (opts.from === "checkpoint" && trusted) {
    mode = "checkpoint";
    await walkFromCheckpoint(client, check, sink, {
      batchSize,
      onProgress: opts.onProgress,
      detached,
    });
  } else {
    if (opts.from === "checkpoint") {
      warnings.push(
        opts.publicKey
          ? "no checkpoint whose signature verifies with the configured key: verified every chain from its start instead"
          : "verifying from a checkpoint needs LEDGER_PUBLIC_KEY (or LEDGER_SIGNING_KEY) to check its signature: verified every chain from its start instead",
      );
    }
    await walkFromStart(client, check, batchSize, opts.onProgress);
    await reportEmptyStreams(client, check, detached);
    // After the walk, so a stream's own chain problem is the one named for it.
    await checkClaims(client, check, sink.sources, sink.problem, detached);
  }

  // Every task opens its stream with task.enqueued, so a task without a stream lost its history.
  const orphans = await client.query<{ id: string }>(
    `select t.id from tasks t
     where not exists (select 1 from ledger_streams s where s.stream = 'task:' || t.id::text)
     order by t.created_at limit 1000`,
  );
  for (const t of orphans.rows) {
    check.report({
      stream: `task:${t.id}`,
      seq: 1,
      entryId: null,
      problem: "missing_stream",
      message: `task ${t.id} exists but its ledger stream is gone`,
    });
  }

  await checkSystemEvidence(client, (p) => check.report(p));
  for (const a of await unrecordedArchives(client)) {
    check.report({
      stream: SYSTEM_STREAM,
      seq: null,
      entryId: null,
      problem: "unrecorded_archive",
      message:
        a.recorded === null
          ? `${a.streams} streams are marked archived in archive ${a.archiveId}, which no ledger.archived entry records: the mark was set outside agent-ledger archive`
          : `${a.streams} streams are marked archived in archive ${a.archiveId}, whose ledger.archived entry records ${a.recorded}`,
    });
  }
  if (detached.length > 0) {
    const { rows } = await client.query<{ streams: number }>(
      `select count(*)::int as streams from ledger_streams s where ${detachedStream(1)}`,
      [detached],
    );
    warnings.push(
      `${rows[0]?.streams ?? 0} archived streams of ${detached.join(", ")} were detached: their entries are in the archives (agent-ledger verify --archive DIR checks them)`,
    );
  }

  const problems = check.problems;
  problems.sort((a, b) => (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0));
  return {
    ok: problems.length === 0,
    mode,
    streams: check.streams,
    entries: check.entries,
    problems,
    warnings,
    checkpoint,
    ...(expected ? { expected } : {}),
  };
}

/**
 * Every entry in (stream, seq) order, in keyset pages. The next page is asked for as soon as
 * one arrives, so PostgreSQL reads it while this one is hashed.
 */
async function walkFromStart(
  client: SqlClient,
  check: ChainCheck,
  batchSize: number,
  onProgress?: (entries: number) => void,
): Promise<void> {
  const heads = new Map<string, Head>();
  const page = (after: [string, number] | undefined) => {
    const p = client.query<EntryRow>(
      after
        ? `select ${ENTRY_COLUMNS} from ledger_entries
           where (stream, seq) > ($1, $2) order by stream, seq limit $3`
        : `select ${ENTRY_COLUMNS} from ledger_entries order by stream, seq limit $1`,
      after ? [after[0], after[1], batchSize] : [batchSize],
    );
    // Awaited below; a failure while the previous page is checked must not go unhandled.
    p.catch(() => undefined);
    return p;
  };
  let cur: StreamCursor | undefined;
  let pending = page(undefined);
  let more = true;
  while (more) {
    const { rows }: { rows: EntryRow[] } = await pending;
    if (rows.length === 0) break;
    const newStreams = [...new Set(rows.map((r) => r.stream))].filter((s) => !heads.has(s));
    const headRows = client.query<{ stream: string; head_seq: number; head_hash: string }>(
      "select stream, head_seq, head_hash from ledger_streams where stream = any($1::text[])",
      [newStreams],
    );
    headRows.catch(() => undefined);
    const last = rows[rows.length - 1] as EntryRow;
    more = rows.length === batchSize;
    if (more) pending = page([last.stream, Number(last.seq)]);
    for (const h of (await headRows).rows)
      heads.set(h.stream, { seq: Number(h.head_seq), hash: h.head_hash });

    for (const row of rows) {
      if (!cur || cur.stream !== row.stream) {
        if (cur) {
          check.finish(cur, heads.get(cur.stream));
          // Streams come in order: a finished one's head is not needed again.
          heads.delete(cur.stream);
        }
        cur = check.start(row.stream);
      }
      check.entry(cur, row);
    }
    onProgress?.(check.entries);
  }
  if (cur) check.finish(cur, heads.get(cur.stream));
}

/** Head rows whose stream has no entries left at all (and was not archived, then detached). */
async function reportEmptyStreams(
  client: SqlClient,
  check: ChainCheck,
  detached: readonly string[],
): Promise<void> {
  const empty = await client.query<{ stream: string; head_seq: number }>(
    `select s.stream, s.head_seq from ledger_streams s
     where s.head_seq > 0 and not exists (select 1 from ledger_entries e where e.stream = s.stream)
       and not ${detachedStream(1)}
     order by s.stream limit 1000`,
    [detached],
  );
  for (const s of empty.rows) {
    check.streams += 1;
    check.report({
      stream: s.stream,
      seq: 1,
      entryId: null,
      problem: "missing_stream",
      message: `all ${s.head_seq} entries of ${s.stream} are missing (its head row remains)`,
    });
  }
}
