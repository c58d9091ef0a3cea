// agent-ledger archive (issue 23): the streams of tasks closed before a date are written to
// files under a signed statement (read in one snapshot, a batch at a time), the files are
// verified, then the streams are frozen in one transaction that also appends the
// ledger.archived system entry. Last, every past month whose streams are now all archived
// loses its partition of ledger_entries (archive-detach.ts), unless the entries are kept.
import { createHash, type KeyObject, randomUUID } from "node:crypto";
import { mkdir, readdir, rm, rmdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type pg from "pg";
import {
  ARCHIVE_FILES,
  ARCHIVE_INDEX_TYPE,
  ARCHIVE_STATEMENT_TYPE,
  type ArchiveFile,
  type ArchiveHead,
  type ArchiveIndex,
  type ArchiveStatement,
  archiveStatementText,
  headLine,
} from "../../domain/archive";
import { TERMINAL_STATUSES } from "../../domain/task-states";
import {
  type DetachableMonth,
  type DetachOutcome,
  detachArchivedMonths,
  detachableMonths,
} from "./archive-detach";
import { fileDigest, GzipLineWriter } from "./archive-files";
import { freezeArchive } from "./archive-freeze";
import { verifyArchive } from "./archive-verify";
import { ENTRY_TEXT_COLUMNS, type EntryTextRow, entryJsonLine } from "./entry-lines";
import { keyId, rawPublicKey, signText } from "./signing";

/**
 * Refused: nothing was archived, nothing is left behind; the message says why. `found` when the
 * ledger or the files written are at fault (not the setup: no key, a directory in use).
 */
export class ArchiveRefused extends Error {
  override name = "ArchiveRefused";
  constructor(
    message: string,
    readonly found = false,
  ) {
    super(message);
  }
}

export type ArchiveOptions = {
  /** Streams of tasks that reached a terminal status before this instant. */
  before: Date;
  dir: string;
  actor: string;
  /** Required unless dryRun. */
  signingKey?: KeyObject;
  /** Count what would be archived; write nothing. */
  dryRun?: boolean;
  /** Archive and freeze, but detach no month: the entries stay in the database. */
  keepEntries?: boolean;
  onProgress?: (entries: number) => void;
  /** Called between writing the files and freezing the streams (tests append here). */
  beforeFreeze?: () => Promise<void>;
  /** Streams per page and entries per read; smaller in tests. */
  batch?: number;
};

export type ArchiveResult =
  | {
      outcome: "dry_run";
      streams: number;
      entries: number;
      /** Months whose every stream is archived already (this run's streams not counted). */
      detachable: DetachableMonth[];
    }
  | ({ outcome: "nothing" } & DetachOutcome)
  | ({
      outcome: "archived";
      archiveId: string;
      streams: number;
      entries: number;
      dir: string;
      statementDigest: string;
      /** The ledger.archived entry's seq in the system stream. */
      systemSeq: number;
    } & DetachOutcome);

const BATCH = 1000;

/**
 * Task streams that may be archived: closed before $2, not archived yet. Walked from the
 * streams' byte-order index (ledger_streams_stream_c_idx), each joined to its task by primary
 * key, so a page costs the streams it passes over, never a sort of every closed task.
 */
const CANDIDATES = `from ledger_streams s
  join tasks t on t.id = (case when s.stream ~* '^task:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                               then substr(s.stream, 6)::uuid end)
  where s.stream collate "C" >= 'task:' and s.stream collate "C" < 'task;'
    and s.archived_in is null and s.head_seq > 0
    and t.status = any($1::text[]) and t.status_changed_at < $2`;

type CandidateRow = {
  stream: string;
  head_seq: number;
  head_hash: string;
  task_id: string;
  closed_at: Date;
};

export async function archiveLedger(pool: pg.Pool, opts: ArchiveOptions): Promise<ArchiveResult> {
  const terminal = [...TERMINAL_STATUSES];
  const dirState = await emptyDir(opts.dir);
  if (opts.dryRun) {
    const { rows } = await pool.query<{ streams: number; entries: number }>(
      `select count(*)::int as streams, coalesce(sum(s.head_seq), 0)::bigint as entries ${CANDIDATES}`,
      [terminal, opts.before],
    );
    return {
      outcome: "dry_run",
      streams: rows[0]?.streams ?? 0,
      entries: rows[0]?.entries ?? 0,
      detachable: await detachableMonths(pool),
    };
  }
  const key = opts.signingKey;
  if (!key) {
    throw new ArchiveRefused(
      "an archive is signed, and LEDGER_SIGNING_KEY is not set: make a key with agent-ledger checkpoint --new-key and set LEDGER_SIGNING_KEY (and LEDGER_PUBLIC_KEY where archives are verified)",
    );
  }
  const first = await pool.query(`select 1 ${CANDIDATES} limit 1`, [terminal, opts.before]);
  if (first.rowCount === 0) return { outcome: "nothing", ...(await detach(pool, opts)) };

  if (dirState === "absent") await mkdir(opts.dir, { recursive: true });
  const files = Object.values(ARCHIVE_FILES).map((f) => path.join(opts.dir, f));
  let done = false;
  try {
    const written = await writeFiles(pool, opts, key, terminal);
    if (written === null) return { outcome: "nothing", ...(await detach(pool, opts)) };
    const check = await verifyArchive(opts.dir, { publicKey: key });
    const problem = check.problems[0];
    if (problem) {
      throw new ArchiveRefused(
        `the archive written does not verify (${problem.kind}: ${problem.message}); nothing was archived`,
        true,
      );
    }
    await opts.beforeFreeze?.();
    const frozen = await freezeArchive(pool, { dir: opts.dir, file: written, actor: opts.actor });
    done = true;
    return {
      outcome: "archived",
      archiveId: written.statement.archiveId,
      streams: written.statement.streams,
      entries: written.statement.entries,
      dir: opts.dir,
      statementDigest: frozen.statementDigest,
      systemSeq: frozen.systemSeq,
      ...(await detach(pool, opts)),
    };
  } finally {
    if (!done) {
      // An archive that was not frozen is no archive: its files go, so DIR can be used again.
      await Promise.all(files.map((f) => rm(f, { force: true })));
      if (dirState === "absent") await rmdir(opts.dir).catch(() => undefined);
    }
  }
}

/**
 * After a freeze (or with nothing new to archive): the months that may go now, unless kept. The
 * archive stands whatever happens here; a month not detached now is taken by the next run.
 */
async function detach(pool: pg.Pool, opts: ArchiveOptions): Promise<DetachOutcome> {
  return opts.keepEntries ? { detached: [] } : detachArchivedMonths(pool, { actor: opts.actor });
}

/** DIR must be absent or empty: an archive never mixes with other files. */
async function emptyDir(dir: string): Promise<"absent" | "empty"> {
  try {
    const names = await readdir(dir);
    if (names.length > 0) {
      throw new ArchiveRefused(`${dir} is not empty: an archive needs a directory of its own`);
    }
    return "empty";
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return "absent";
    if (code === "ENOTDIR") throw new ArchiveRefused(`${dir} is a file, not a directory`);
    throw err;
  }
}

/**
 * Both data files and the signed statement, from one read-only snapshot; null when nothing
 * matched by the time the snapshot was taken.
 */
async function writeFiles(
  pool: pg.Pool,
  opts: ArchiveOptions,
  key: KeyObject,
  terminal: string[],
): Promise<ArchiveFile | null> {
  const batch = opts.batch ?? BATCH;
  const client = await pool.connect();
  const entriesOut = new GzipLineWriter(path.join(opts.dir, ARCHIVE_FILES.entries));
  const headsOut = new GzipLineWriter(path.join(opts.dir, ARCHIVE_FILES.heads));
  const headsHash = createHash("sha256");
  let streams = 0;
  let entries = 0;
  let at: Date;
  try {
    await client.query("begin isolation level repeatable read read only");
    const clock = await client.query<{ now: Date }>(
      "select date_trunc('milliseconds', clock_timestamp()) as now",
    );
    at = clock.rows[0]?.now ?? new Date();
    let after: string | null = null;
    for (;;) {
      const page: pg.QueryResult<CandidateRow> = await client.query<CandidateRow>(
        `select s.stream, s.head_seq, s.head_hash, t.id as task_id, t.status_changed_at as closed_at
         ${CANDIDATES} and ($3::text is null or s.stream collate "C" > $3)
         order by s.stream collate "C" limit $4`,
        [terminal, opts.before, after, batch],
      );
      for (const s of page.rows) {
        entries += await writeStream(client, s, entriesOut, batch);
        const line = headLine(headOf(s));
        headsHash.update(line, "utf8");
        await headsOut.write(line, s.stream);
        streams += 1;
        opts.onProgress?.(entries);
      }
      if (page.rows.length < batch) break;
      after = (page.rows[page.rows.length - 1] as CandidateRow).stream;
    }
  } finally {
    await client.query("rollback").catch(() => undefined);
    client.release();
    await Promise.all([entriesOut.close(), headsOut.close()]);
  }
  if (streams === 0) return null;
  const index: ArchiveIndex = {
    type: ARCHIVE_INDEX_TYPE,
    entries: entriesOut.members,
    heads: headsOut.members,
  };
  await writeFile(path.join(opts.dir, ARCHIVE_FILES.index), `${JSON.stringify(index)}\n`, {
    flag: "wx",
  });

  const statement: ArchiveStatement = {
    type: ARCHIVE_STATEMENT_TYPE,
    archiveId: randomUUID(),
    before: opts.before.toISOString(),
    at: at.toISOString(),
    streams,
    entries,
    headsDigest: headsHash.digest("hex"),
    files: {
      entries: await fileDigest(path.join(opts.dir, ARCHIVE_FILES.entries)),
      heads: await fileDigest(path.join(opts.dir, ARCHIVE_FILES.heads)),
    },
    keyId: keyId(key),
  };
  const file: ArchiveFile = {
    statement,
    algorithm: "ed25519",
    publicKey: rawPublicKey(key),
    signature: signText(key, archiveStatementText(statement)),
  };
  await writeFile(
    path.join(opts.dir, ARCHIVE_FILES.statement),
    `${JSON.stringify(file, null, 2)}\n`,
    { flag: "wx" },
  );
  return file;
}

function headOf(s: CandidateRow): ArchiveHead {
  return {
    stream: s.stream,
    seq: Number(s.head_seq),
    hash: s.head_hash,
    taskId: s.task_id,
    closedAt: s.closed_at.toISOString(),
  };
}

/** One stream's entries, `batch` at a time; returns how many. */
async function writeStream(
  client: pg.ClientBase,
  s: CandidateRow,
  out: GzipLineWriter,
  batch: number,
): Promise<number> {
  let last = 0;
  for (;;) {
    const { rows } = await client.query<EntryTextRow>(
      `select ${ENTRY_TEXT_COLUMNS} from ledger_entries e
       where e.stream = $1 and e.seq > $2 and e.seq <= $3 order by e.seq limit $4`,
      [s.stream, last, s.head_seq, batch],
    );
    const broken = rows.find((r) => r.prev_hash === null);
    if (broken) {
      throw new ArchiveRefused(
        `${s.stream} has no entry before seq ${broken.seq}: run agent-ledger verify; nothing was archived`,
        true,
      );
    }
    await out.write(rows.map(entryJsonLine).join(""), s.stream);
    if (rows.length > 0) last = Number((rows[rows.length - 1] as EntryTextRow).seq);
    if (rows.length < batch) break;
  }
  // Within one snapshot the head and its entries agree, unless the ledger was damaged.
  if (last !== Number(s.head_seq)) {
    throw new ArchiveRefused(
      `${s.stream} ends at seq ${last} but its head says seq ${s.head_seq}: run agent-ledger verify; nothing was archived`,
      true,
    );
  }
  return last;
}
