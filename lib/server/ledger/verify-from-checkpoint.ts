// The walk of `verify --since-checkpoint`: every stream starts at the head the latest signed
// checkpoint recorded for it (that entry is re-read and re-hashed, and must still hash to what
// the checkpoint says), and only the entries after it are read; streams the checkpoint does not
// know start at genesis. What lies before a checkpointed head is trusted to the signature: an
// old entry rewritten in place without touching its hash is found by the full pass alone.
// Streams are taken from their head rows in batches in byte order (collate "C"), each batch's
// entries in one statement (a lateral index range per stream), so the cost follows the entries
// appended since, plus one entry per stream; entries whose stream has no head row are found by
// one anti-join. The checkpoints' heads are merged in, in the same order, a chunk at a time,
// so only a batch's claims are held (plus those of streams whose head row is gone).
import type { SqlClient } from "../../../db/client";
import { GENESIS_HASH } from "../../domain/hash";
import { SYSTEM_STREAM } from "./append-ledger";
import { detachedStream } from "./archive-detach";
import { type ChainCheck, ENTRY_COLUMNS, type EntryRow, type Head } from "./chain-check";
import { type ClaimSource, HeadCursor } from "./checkpoint-chunks";
import type { Claims, Sink } from "./verify-checkpoint";

/** Streams per statement. */
const STREAMS_PER_BATCH = 2_000;
/** Entries per stream per statement; a stream with more is read on by itself. */
const PER_STREAM = 64;

type Walk = { stream: string; head: Head | undefined };
type HeadRow = { stream: string; head_seq: number; head_hash: string; detached: boolean };

export async function walkFromCheckpoint(
  client: SqlClient,
  check: ChainCheck,
  sink: Sink,
  opts: {
    batchSize: number;
    onProgress?: (entries: number) => void;
    /** Months detached after archiving: their archived streams are the archives' to check. */
    detached?: readonly string[];
  },
): Promise<void> {
  const cursors = sink.sources.map(
    (source) =>
      new HeadCursor(client, source, (s: ClaimSource, problem: string, seq: number) =>
        sink.problem({
          stream: SYSTEM_STREAM,
          seq,
          entryId: null,
          problem: "bad_checkpoint",
          message: `${s.label}: ${problem}`,
        }),
      ),
  );
  // Claims of streams that have no head row (they fell between two head rows).
  const headless: Claims = new Map();
  let after: string | null = null;
  while (true) {
    const { rows }: { rows: HeadRow[] } = await client.query(
      `select stream, head_seq, head_hash, ${detachedStream(3)} as detached from ledger_streams s
        where $1::text is null or stream collate "C" > $1 order by stream collate "C" limit $2`,
      [after, STREAMS_PER_BATCH, opts.detached ?? []],
    );
    if (rows.length === 0) break;
    after = (rows[rows.length - 1] as { stream: string }).stream;
    const batch = rows
      .filter((r) => !r.detached)
      .map((r) => ({ stream: r.stream, head: { seq: Number(r.head_seq), hash: r.head_hash } }));
    const claims = await claimsThrough(cursors, after);
    const here = new Set(rows.map((r) => r.stream));
    const gone = new Set(rows.filter((r) => r.detached).map((r) => r.stream));
    for (const [stream, list] of claims) {
      // A detached stream's claims are its archive's to check (verify --archive).
      if (gone.has(stream)) claims.delete(stream);
      if (here.has(stream)) continue;
      headless.set(stream, list);
      claims.delete(stream);
    }
    check.claims = claims;
    await walkStreams(client, check, batch, opts.batchSize);
    opts.onProgress?.(check.entries);
    if (rows.length < STREAMS_PER_BATCH) break;
  }
  for (const [stream, list] of await claimsThrough(cursors, null)) headless.set(stream, list);

  // A stream a checkpoint recorded whose head row is gone: its entries, if any are left, are
  // still checked (and reported without a head); with none, it is reported gone.
  check.claims = headless;
  const streams = [...headless.keys()];
  for (let i = 0; i < streams.length; i += STREAMS_PER_BATCH) {
    const batch = streams.slice(i, i + STREAMS_PER_BATCH).map((stream) => ({
      stream,
      head: undefined,
    }));
    await walkStreams(client, check, batch, opts.batchSize);
  }
  for (const [stream, list] of headless) {
    const claim = list.find((c) => !c.seen);
    if (!claim) continue;
    check.report({
      stream,
      seq: claim.seq,
      entryId: null,
      problem: "missing_stream",
      message: `stream ${stream} (seq ${claim.seq} in ${claim.source}) is gone: no entries and no head`,
    });
  }

  // Entries of a stream with neither a head row nor a claim (the foreign key bypassed): one
  // anti-join, read in PostgreSQL and never sent here unless there are some.
  const { rows: orphans } = await client.query<{ stream: string }>(
    `select distinct e.stream from ledger_entries e
      where not exists (select 1 from ledger_streams s where s.stream = e.stream)
      order by e.stream limit 1000`,
  );
  const unclaimed = orphans.filter((o) => !headless.has(o.stream));
  if (unclaimed.length > 0) {
    check.claims = new Map();
    await walkStreams(
      client,
      check,
      unclaimed.map((o) => ({ stream: o.stream, head: undefined })),
      opts.batchSize,
    );
  }
}

/** Every source's claims of streams up to `stream` (all that are left with null). */
async function claimsThrough(
  cursors: readonly HeadCursor[],
  stream: string | null,
): Promise<Claims> {
  const claims: Claims = new Map();
  for (const cursor of cursors) {
    for (const h of await cursor.until(stream)) {
      const list = claims.get(h.stream) ?? [];
      list.push({ seq: h.seq, hash: h.hash, seen: false, source: cursor.source.label });
      claims.set(h.stream, list);
    }
  }
  return claims;
}

/** The first seq to check and the hash it chains onto (null: the hash of the entry before it, taken as is). */
function startOf(check: ChainCheck, stream: string): { seq: number; prevHash: string | null } {
  const claims = check.claims.get(stream);
  if (!claims || claims.length === 0) return { seq: 1, prevHash: GENESIS_HASH };
  const seq = Math.min(...claims.map((c) => c.seq));
  return seq <= 1 ? { seq: 1, prevHash: GENESIS_HASH } : { seq, prevHash: null };
}

type BatchRow = EntryRow & { ord: number };

async function walkStreams(
  client: SqlClient,
  check: ChainCheck,
  batch: readonly Walk[],
  batchSize: number,
): Promise<void> {
  const starts = batch.map((w) => startOf(check, w.stream));
  // From a checkpoint's anchor the walk reads the entry before it too: an entry does not store
  // the hash it chains onto (0062), so that entry's hash is taken, trusted, for the anchor's.
  const reads = starts.map((s) => (s.prevHash === null ? s.seq - 1 : s.seq));
  const { rows } = await client.query<BatchRow>(
    `select s.ord::int as ord, e.* from unnest($1::text[], $2::bigint[]) with ordinality as s(stream, from_seq, ord)
      cross join lateral (
        select ${ENTRY_COLUMNS} from ledger_entries
         where stream = s.stream and seq >= s.from_seq order by seq limit $3) e
      order by s.ord, e.seq`,
    [batch.map((w) => w.stream), reads, PER_STREAM],
  );
  let r = 0;
  for (const [i, w] of batch.entries()) {
    const start = starts[i] as { seq: number; prevHash: string | null };
    let taken = 0;
    const first = rows[r];
    if (!first || Number(first.ord) !== i + 1) {
      noEntries(check, w, start.seq);
      continue;
    }
    const cur = check.start(w.stream, reads[i] as number, start.prevHash);
    let lastSeq = 0;
    for (; r < rows.length && Number((rows[r] as BatchRow).ord) === i + 1; r++) {
      const row = rows[r] as BatchRow;
      check.entry(cur, row);
      lastSeq = Number(row.seq);
      taken += 1;
    }
    // A long run of new entries: read on in pages of its own.
    while (taken >= PER_STREAM) {
      const more = await client.query<EntryRow>(
        `select ${ENTRY_COLUMNS} from ledger_entries
          where stream = $1 and seq > $2 order by seq limit $3`,
        [w.stream, lastSeq, batchSize],
      );
      for (const row of more.rows) {
        check.entry(cur, row);
        lastSeq = Number(row.seq);
      }
      taken = more.rows.length >= batchSize ? PER_STREAM : 0;
    }
    check.finish(cur, w.head);
  }
}

/** Nothing at or after the start: a stream emptied, or cut back before its checkpointed head. */
function noEntries(check: ChainCheck, w: Walk, fromSeq: number): void {
  const claims = check.claims.get(w.stream) ?? [];
  if (claims.length === 0) {
    if (!w.head || w.head.seq === 0) return;
    check.streams += 1;
    check.report({
      stream: w.stream,
      seq: 1,
      entryId: null,
      problem: "missing_stream",
      message: `all ${w.head.seq} entries of ${w.stream} are missing (its head row remains)`,
    });
    return;
  }
  // Headless and empty: the caller reports the stream gone, from its unseen claims.
  if (!w.head) return;
  check.streams += 1;
  const claim = claims.find((c) => c.seq === fromSeq) ?? claims[0];
  check.report({
    stream: w.stream,
    seq: fromSeq,
    entryId: null,
    problem: "missing_entries",
    message: `${claim?.source ?? "a checkpoint"} recorded ${w.stream} at seq ${fromSeq}, but no entry from seq ${fromSeq} on is left (the stream head says seq ${w.head.seq})`,
  });
  for (const c of claims) c.seen = true;
}
