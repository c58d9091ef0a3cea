// The per-stream chain check both verify walks share (verify-ledger.ts from each stream's
// start, verify-from-checkpoint.ts from the head a signed checkpoint recorded): seq by seq,
// each entry, chained onto the hash of the one before, must hash to its stored hash, the claims
// checkpoints made must hold, and the stream must end where its head row says.
import { GENESIS_HASH } from "../../domain/hash";
import type { JsonValue } from "../../domain/json";
import { parsedEntryHash } from "../../domain/parsed-hash";
import type { Claims, LedgerProblem, LedgerProblemKind } from "./verify-checkpoint";

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
  hash: string;
  /** The hash it chains onto, as an archive file's line states it: the database keeps none (0062). */
  prev_hash?: string;
};

/**
 * An entry does not store the hash it chains onto (migration 0062): a walk in seq order
 * chains each entry onto the hash of the one it read before.
 */
export const ENTRY_COLUMNS = "id, stream, seq, at, kind, actor, task_id, key, data, hash";

/** Recomputes an entry's hash from its stored columns, chained on `prevHash`. */
export function rowHash(
  prevHash: string,
  row: Pick<EntryRow, "stream" | "seq" | "at" | "kind" | "actor" | "task_id" | "key" | "data">,
): string {
  return parsedEntryHash(prevHash, {
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

export type StreamCursor = {
  stream: string;
  expectedSeq: number;
  /**
   * The hash the next entry chains onto; null: the first entry read is trusted, not checked, and
   * only its hash is taken (the entry before a checkpoint's anchor).
   */
  prevHash: string | null;
  broken: boolean;
};

export type Head = { seq: number; hash: string };

const short = (h: string) => `${h.slice(0, 12)}…`;

export class ChainCheck {
  readonly problems: LedgerProblem[] = [];
  private readonly broken = new Set<string>();
  entries = 0;
  streams = 0;

  /** The claims of the streams being walked (a batch at a time from a chunked checkpoint). */
  constructor(public claims: Claims) {}

  /** A problem of a stream's chain: only its first one is kept. */
  report(p: LedgerProblem): void {
    if (this.broken.has(p.stream)) return;
    this.broken.add(p.stream);
    this.problems.push(p);
  }

  isBroken(stream: string): boolean {
    return this.broken.has(stream);
  }

  start(stream: string, fromSeq = 1, prevHash: string | null = GENESIS_HASH): StreamCursor {
    this.streams += 1;
    return { stream, expectedSeq: fromSeq, prevHash, broken: false };
  }

  entry(cur: StreamCursor, row: EntryRow): void {
    // The trusted entry before an anchor is read for its hash, not checked.
    if (cur.prevHash !== null) this.entries += 1;
    const seq = Number(row.seq);
    this.check(cur, row, seq);
    cur.expectedSeq = seq + 1;
    cur.prevHash = row.hash;
  }

  private check(cur: StreamCursor, row: EntryRow, seq: number): void {
    if (cur.broken) return;
    if (seq !== cur.expectedSeq) {
      // Name the first missing seq; entryId is the entry where the gap shows.
      this.fail(
        cur,
        row,
        cur.expectedSeq,
        "seq_gap",
        `${row.stream} jumps from seq ${cur.expectedSeq - 1} to seq ${seq}: entries ${cur.expectedSeq}..${seq - 1} are missing`,
      );
      return;
    }
    if (cur.prevHash === null) return;
    if (row.prev_hash !== undefined && row.prev_hash !== cur.prevHash) {
      this.fail(
        cur,
        row,
        seq,
        "prev_hash_mismatch",
        `${row.stream} seq ${seq} points back to ${short(row.prev_hash)}, but the entry before it hashes to ${short(cur.prevHash)}`,
      );
      return;
    }
    const recomputed = rowHash(cur.prevHash, row);
    if (recomputed !== row.hash) {
      this.fail(
        cur,
        row,
        seq,
        "hash_mismatch",
        `${row.stream} seq ${seq} (${row.kind}) was altered, or the entry before it was: stored hash ${short(row.hash)}, recomputed onto the hash before it ${short(recomputed)}`,
      );
      return;
    }
    const claims = this.claims.get(row.stream);
    if (claims === undefined) return;
    for (const claim of claims) {
      if (claim.seq !== seq) continue;
      claim.seen = true;
      if (claim.hash !== row.hash && !cur.broken) {
        this.fail(
          cur,
          row,
          seq,
          "checkpoint_mismatch",
          `${row.stream} seq ${seq} hashes to ${short(row.hash)}, but ${claim.source} recorded ${short(claim.hash)}: the stream was rewritten`,
        );
      }
    }
  }

  private fail(
    cur: StreamCursor,
    row: EntryRow,
    seq: number,
    problem: LedgerProblemKind,
    message: string,
  ): void {
    cur.broken = true;
    this.report({ stream: row.stream, seq, entryId: Number(row.id), problem, message });
  }

  /** The stream's last entry was read: it must be where the head row says, past every claim. */
  finish(c: StreamCursor, head: Head | undefined): void {
    const lastSeq = c.expectedSeq - 1;
    if (!c.broken && !head) {
      this.report({
        stream: c.stream,
        seq: null,
        entryId: null,
        problem: "missing_head",
        message: `stream ${c.stream} has entries but no head row`,
      });
    } else if (!c.broken && head && (head.seq !== lastSeq || head.hash !== c.prevHash)) {
      this.report({
        stream: c.stream,
        seq: lastSeq + 1,
        entryId: null,
        problem: head.seq > lastSeq ? "missing_entries" : "head_mismatch",
        message:
          head.seq > lastSeq
            ? `entries ${lastSeq + 1}..${head.seq} of ${c.stream} are missing: the stream head says seq ${head.seq}, the last entry is seq ${lastSeq}`
            : `head of ${c.stream} says seq ${head.seq} hash ${short(head.hash)}, the last entry is seq ${lastSeq} hash ${short(c.prevHash ?? "")}`,
      });
    }
    for (const claim of this.claims.get(c.stream) ?? []) {
      if (!claim.seen && !this.broken.has(c.stream)) {
        this.report({
          stream: c.stream,
          seq: claim.seq,
          entryId: null,
          problem: "missing_entries",
          message: `${claim.source} recorded ${c.stream} at seq ${claim.seq}, but the stream ends at seq ${lastSeq}`,
        });
      }
      claim.seen = true;
    }
  }
}
