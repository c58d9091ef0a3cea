// The last step of an archive: in one transaction, lock the archived streams' heads, check that
// none moved since the snapshot the files were written from, mark them archived (from then on
// the guard trigger refuses every append, migration 0054) and append the ledger.archived
// system entry naming the statement. Either all of it commits or none of it.
import path from "node:path";
import type pg from "pg";
import { withTransaction } from "../../../db/client";
import {
  ARCHIVE_FILES,
  ARCHIVED_KIND,
  type ArchivedEntryData,
  type ArchiveFile,
  type ArchiveHead,
  archiveFileDigest,
  archiveHeadSchema,
} from "../../domain/archive";
import { appendLedger, SYSTEM_STREAM } from "./append-ledger";
import { gzipLines } from "./archive-files";

/** Streams moved between the snapshot and the freeze: nothing was archived. */
export class ArchiveConflict extends Error {
  override name = "ArchiveConflict";
  constructor(readonly moved: number) {
    super(`${moved} streams changed while archiving; run again`);
  }
}

const BATCH = 1000;

/** The heads file, `size` lines at a time. */
export async function* headBatches(dir: string, size = BATCH): AsyncGenerator<ArchiveHead[]> {
  let batch: ArchiveHead[] = [];
  for await (const line of gzipLines(path.join(dir, ARCHIVE_FILES.heads))) {
    batch.push(archiveHeadSchema.parse(JSON.parse(line)));
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

const headsJson = (heads: ArchiveHead[]) =>
  JSON.stringify(heads.map((h) => ({ stream: h.stream, seq: h.seq, hash: h.hash })));

export async function freezeArchive(
  pool: pg.Pool,
  opts: { dir: string; file: ArchiveFile; actor: string; batch?: number },
): Promise<{ statementDigest: string; systemSeq: number }> {
  const { statement } = opts.file;
  const statementDigest = archiveFileDigest(opts.file);
  return withTransaction(pool, async (client) => {
    let moved = 0;
    // Locked in stream order, as appenders lock heads, so neither waits on the other in a cycle.
    for await (const heads of headBatches(opts.dir, opts.batch)) {
      const { rows } = await client.query<{ moved: number }>(
        `with h as (
           select * from jsonb_to_recordset($1::jsonb) as h(stream text, seq bigint, hash text)
         ), locked as (
           select s.stream, s.head_seq, s.head_hash, s.archived_in from ledger_streams s
           where s.stream in (select stream from h) order by s.stream for update
         )
         select count(*)::int as moved from h left join locked l using (stream)
         where l.stream is null or l.head_seq <> h.seq or l.head_hash <> h.hash
            or l.archived_in is not null`,
        [headsJson(heads)],
      );
      moved += rows[0]?.moved ?? 0;
    }
    if (moved > 0) throw new ArchiveConflict(moved);
    for await (const heads of headBatches(opts.dir, opts.batch)) {
      const updated = await client.query(
        `update ledger_streams s set archived_in = $2, archived_at = now()
         from jsonb_to_recordset($1::jsonb) as h(stream text, seq bigint, hash text)
         where s.stream = h.stream and s.head_seq = h.seq and s.head_hash = h.hash
           and s.archived_in is null`,
        [headsJson(heads), statement.archiveId],
      );
      // Locked and checked above; a shortfall would mean the check and the update disagree.
      if (updated.rowCount !== heads.length) throw new ArchiveConflict(heads.length);
    }
    const data: ArchivedEntryData = {
      archiveId: statement.archiveId,
      before: statement.before,
      streams: statement.streams,
      entries: statement.entries,
      headsDigest: statement.headsDigest,
      statementDigest,
    };
    const [entry] = await appendLedger(client, SYSTEM_STREAM, {
      kind: ARCHIVED_KIND,
      actor: opts.actor,
      data,
    });
    return { statementDigest, systemSeq: entry?.seq ?? 0 };
  });
}
