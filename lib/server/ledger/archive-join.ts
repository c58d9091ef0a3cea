// verify --archive joined to the live ledger: every stream the files hold must be archived in
// this archive with the same head, no stream archived in it may be missing from the files, the
// ledger.archived entry must name this very statement, and every entry in the files must be the
// one in the database, unless the month it was in has been detached (ledger.detached): then the
// head is what the database still holds of it. Heads and entries arrive in batches as the files
// are walked, so memory stays flat.
import type pg from "pg";
import { ARCHIVED_KIND, type ArchiveHead, type ArchiveProblem } from "../../domain/archive";
import { SYSTEM_STREAM } from "./append-ledger";
import { detachedMonthsOf, detachedStream } from "./archive-detach";

const BATCH = 1000;

type EntryRef = { stream: string; seq: number; hash: string };

export class ArchiveJoin {
  private heads: ArchiveHead[] = [];
  private entries: EntryRef[] = [];
  /** The last stream of the heads already checked: the range the next batch covers starts after it. */
  private checkedThrough: string | null = null;
  /** The months detached (read once, when the first entries are compared). */
  private detached: string[] | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly archiveId: string,
    private readonly report: (p: ArchiveProblem) => void,
  ) {}

  /** The ledger.archived entry naming this statement's digest. */
  async checkSystemEntry(statementDigest: string): Promise<void> {
    const { rows } = await this.pool.query<{ seq: number; digest: string | null }>(
      `select seq, data->>'statementDigest' as digest from ledger_entries
       where stream = $1 and kind = $2 and data->>'archiveId' = $3 order by seq`,
      [SYSTEM_STREAM, ARCHIVED_KIND, this.archiveId],
    );
    if (rows.some((r) => r.digest === statementDigest)) return;
    const other = rows[0];
    this.report({
      kind: other ? "statement_mismatch" : "missing_archive_entry",
      stream: SYSTEM_STREAM,
      seq: other ? Number(other.seq) : null,
      message: other
        ? `the ledger's ${ARCHIVED_KIND} entry for archive ${this.archiveId} names statement ${other.digest}, not this statement.json (${statementDigest}): it was replaced`
        : `the ledger has no ${ARCHIVED_KIND} entry for archive ${this.archiveId}: this archive was never frozen in this ledger`,
    });
  }

  async head(h: ArchiveHead): Promise<void> {
    this.heads.push(h);
    if (this.heads.length >= BATCH) await this.flushHeads(false);
  }

  /** An entry of the files, by the hash its content recomputes to: equal only if the database holds the same entry. */
  async entry(e: Omit<EntryRef, "hash">, contentHash: string): Promise<void> {
    this.entries.push({ stream: e.stream, seq: e.seq, hash: contentHash });
    if (this.entries.length >= BATCH) await this.flushEntries();
  }

  async finish(): Promise<void> {
    await this.flushHeads(true);
    await this.flushEntries();
  }

  private async flushHeads(last: boolean): Promise<void> {
    const heads = this.heads;
    this.heads = [];
    if (heads.length > 0) {
      const { rows } = await this.pool.query<{
        stream: string;
        seq: number;
        hash: string;
        head_seq: number | null;
        head_hash: string | null;
        archived_in: string | null;
      }>(
        `select h.stream, h.seq, h.hash, s.head_seq, s.head_hash, s.archived_in
         from jsonb_to_recordset($1::jsonb) as h(stream text, seq bigint, hash text)
         left join ledger_streams s on s.stream = h.stream
         where s.stream is null or s.archived_in is distinct from $2::uuid
            or s.head_seq <> h.seq or s.head_hash <> h.hash
         order by h.stream collate "C"`,
        [
          JSON.stringify(heads.map(({ stream, seq, hash }) => ({ stream, seq, hash }))),
          this.archiveId,
        ],
      );
      for (const r of rows) this.report(headProblem(r, this.archiveId));
    }
    // Streams the database archived in this archive that the files skip over.
    const upTo = last ? null : (heads[heads.length - 1]?.stream ?? null);
    const { rows: missing } = await this.pool.query<{ stream: string; head_seq: number }>(
      `select stream, head_seq from ledger_streams
       where archived_in = $1::uuid
         and ($2::text is null or stream collate "C" > $2)
         and ($3::text is null or stream collate "C" <= $3)
         and not (stream = any($4::text[]))
       order by stream collate "C" limit 100`,
      [this.archiveId, this.checkedThrough, upTo, heads.map((h) => h.stream)],
    );
    for (const r of missing) {
      this.report({
        kind: "missing_stream",
        stream: r.stream,
        seq: null,
        message: `${r.stream} (${r.head_seq} entries) was archived in archive ${this.archiveId}, but the archive's files do not hold it`,
      });
    }
    if (upTo !== null) this.checkedThrough = upTo;
  }

  private async flushEntries(): Promise<void> {
    let entries = this.entries;
    this.entries = [];
    if (entries.length === 0) return;
    this.detached ??= await detachedMonthsOf(this.pool);
    if (this.detached.length > 0) {
      // A detached stream's entries are nowhere to compare with (its head was checked): one
      // lookup per stream, not a probe of every partition per entry.
      const streams = [...new Set(entries.map((e) => e.stream))];
      const { rows: gone } = await this.pool.query<{ stream: string }>(
        `select s.stream from ledger_streams s where s.stream = any($1::text[]) and ${detachedStream(2)}`,
        [streams, this.detached],
      );
      const skip = new Set(gone.map((g) => g.stream));
      entries = entries.filter((e) => !skip.has(e.stream));
      if (entries.length === 0) return;
    }
    const { rows } = await this.pool.query<{ stream: string; seq: number; stored: string | null }>(
      `select p.stream, p.seq, e.hash as stored
       from unnest($1::text[], $2::bigint[], $3::text[]) as p(stream, seq, hash)
       left join ledger_entries e on e.stream = p.stream and e.seq = p.seq
       where e.hash is distinct from p.hash
       order by p.stream collate "C", p.seq`,
      [entries.map((e) => e.stream), entries.map((e) => e.seq), entries.map((e) => e.hash)],
    );
    for (const r of rows) {
      this.report({
        kind: "entry_mismatch",
        stream: r.stream,
        seq: Number(r.seq),
        message:
          r.stored === null
            ? `${r.stream} seq ${r.seq} is in the archive but not in the database`
            : `${r.stream} seq ${r.seq} differs between the archive and the database (database hash ${r.stored.slice(0, 12)}…)`,
      });
    }
  }
}

function headProblem(
  r: {
    stream: string;
    seq: number;
    hash: string;
    head_seq: number | null;
    head_hash: string | null;
    archived_in: string | null;
  },
  archiveId: string,
): ArchiveProblem {
  const at = { stream: r.stream, seq: Number(r.seq) };
  if (r.head_seq === null) {
    return { ...at, kind: "missing_stream", message: `${r.stream} is not in the database` };
  }
  if (r.archived_in !== archiveId) {
    return {
      ...at,
      kind: "not_archived",
      message:
        r.archived_in === null
          ? `${r.stream} is in the archive but not marked archived in the database`
          : `${r.stream} belongs to archive ${r.archived_in}, not ${archiveId}`,
    };
  }
  return {
    ...at,
    kind: "head_mismatch",
    message: `the archive ends ${r.stream} at seq ${r.seq} hash ${r.hash.slice(0, 12)}…, the database at seq ${r.head_seq} hash ${(r.head_hash ?? "").slice(0, 12)}…`,
  };
}
