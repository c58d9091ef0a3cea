// Where an archived task's ledger entries are read from (issue 23): the database while it still
// holds them, else the archive's files under LEDGER_ARCHIVE_DIR, verified (archive-read.ts),
// else nowhere, with the reason. Shared by the task detail and "Why?".
import { sql } from "drizzle-orm";
import { env } from "../../env";
import {
  type ArchiveConfig,
  type ArchiveUnavailable,
  readArchivedStream,
} from "../ledger/archive-read";
import type { EntryRow } from "../ledger/chain-check";
import { configuredPublicKey } from "../ledger/signing";
import type { DbReader } from "./db-reader";

export type { ArchiveConfig, ArchiveUnavailable } from "../ledger/archive-read";

/** Where a task's ledger stream was archived: the archive id and when (ISO 8601, UTC). */
export type ArchivedDto = {
  archiveId: string;
  at: string;
  /**
   * Where this answer's entries of the task were read: the database (it still holds them) or
   * the archive's files (verified); null when neither could be read (`unavailable` says why).
   */
  source: "database" | "files" | null;
  /** Why the archive's files could not be read; null when the entries were. */
  unavailable: ArchiveUnavailable | null;
};

/** The archive mark of a stream's head row; both columns are set together or neither (0053). */
export function archivedOf(archivedIn: string | null, archivedAt: Date | null): ArchivedDto | null {
  return archivedIn !== null && archivedAt !== null
    ? { archiveId: archivedIn, at: archivedAt.toISOString(), source: "database", unavailable: null }
    : null;
}

/** The server's archives: LEDGER_ARCHIVE_DIR and the ledger key. */
export function archiveConfig(): ArchiveConfig {
  const e = env();
  return { dir: e.LEDGER_ARCHIVE_DIR, publicKey: configuredPublicKey(e) };
}

export type ArchivedStream = {
  archived: ArchivedDto | null;
  /** The stream's entries from the archive's files, by seq; null when the database holds them. */
  files: EntryRow[] | null;
};

/**
 * For an archived stream the database no longer holds entries of, its entries from the files
 * (or why not). Read inside the caller's snapshot, so "no entries" and the head agree.
 */
export async function archivedStream(
  db: DbReader,
  stream: string,
  mark: {
    archivedIn: string | null;
    archivedAt: Date | null;
    headSeq: number | null;
    headHash: string | null;
  },
  config: ArchiveConfig,
): Promise<ArchivedStream> {
  const archived = archivedOf(mark.archivedIn, mark.archivedAt);
  if (archived === null) return { archived, files: null };
  const held = await db.execute<{ held: boolean }>(
    sql`select exists (select 1 from ledger_entries where stream = ${stream}) as held`,
  );
  if (held.rows[0]?.held) return { archived, files: null };
  const head =
    mark.headSeq !== null && mark.headHash !== null
      ? { seq: Number(mark.headSeq), hash: mark.headHash }
      : undefined;
  const read = await readArchivedStream(config, archived.archiveId, stream, head);
  if (!read.ok) {
    return { archived: { ...archived, source: null, unavailable: read.unavailable }, files: [] };
  }
  return { archived: { ...archived, source: "files" }, files: read.entries };
}
