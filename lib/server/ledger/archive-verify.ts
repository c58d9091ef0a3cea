// verify --archive: an archive's files checked on their own — the statement's signature, each
// file's sha256 and size, every line, every chain recomputed from genesis and ending at its
// head, the heads' digest and the counts — and, given a database, joined to the live ledger
// (archive-join.ts). Both files are read once, a line at a time, side by side.
import { createHash, type KeyObject } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type pg from "pg";
import {
  ARCHIVE_FILES,
  type ArchiveEntry,
  type ArchiveFile,
  type ArchiveHead,
  type ArchiveProblem,
  type ArchiveProblemKind,
  archiveEntrySchema,
  archiveFileDigest,
  archiveFileSchema,
  archiveHeadSchema,
  archiveStatementText,
  headLine,
} from "../../domain/archive";
import { compareBytes } from "../../domain/checkpoint";
import type { JsonValue } from "../../domain/json";
import { describeIssues } from "../../domain/zod-issues";
import { taskStream } from "./append-ledger";
import { fileDigest, gzipLines } from "./archive-files";
import { ArchiveJoin } from "./archive-join";
import { ChainCheck, type EntryRow, rowHash, type StreamCursor } from "./chain-check";
import { keyId, parsePublicKey, verifyText } from "./signing";

export type ArchiveReport = {
  ok: boolean;
  archiveId: string | null;
  streams: number;
  entries: number;
  /** Which key the signature was checked with. */
  key: "configured" | "embedded" | null;
  /** Whether the files were also checked against a database. */
  joined: boolean;
  problems: ArchiveProblem[];
  warnings: string[];
};

export type VerifyArchiveOptions = {
  /** The configured key (LEDGER_PUBLIC_KEY); without it the statement's own key is used. */
  publicKey?: KeyObject;
  /** The live ledger, to join against. */
  pool?: pg.Pool;
};

export async function verifyArchive(
  dir: string,
  opts: VerifyArchiveOptions = {},
): Promise<ArchiveReport> {
  const problems: ArchiveProblem[] = [];
  const report = (p: ArchiveProblem) => {
    problems.push(p);
  };
  const result: ArchiveReport = {
    ok: false,
    archiveId: null,
    streams: 0,
    entries: 0,
    key: null,
    joined: false,
    problems,
    warnings: [],
  };
  const file = await readStatement(dir, report);
  if (!file) return result;
  const { statement } = file;
  result.archiveId = statement.archiveId;
  result.key = checkSignature(file, opts.publicKey, report);
  if (result.key === "embedded") {
    result.warnings.push(
      "no LEDGER_PUBLIC_KEY (or LEDGER_SIGNING_KEY) is configured: the signature was checked against the key statement.json carries, which shows the files are intact, not who signed them",
    );
  }
  for (const name of ["entries", "heads"] as const) {
    const where = path.join(dir, ARCHIVE_FILES[name]);
    const got = await fileDigest(where).catch(() => null);
    const want = statement.files[name];
    if (got === null) {
      report({ kind: "missing_file", stream: null, seq: null, message: `${where} is missing` });
      return result;
    }
    if (got.sha256 !== want.sha256 || got.bytes !== want.bytes) {
      report({
        kind: "file_mismatch",
        stream: null,
        seq: null,
        message: `${ARCHIVE_FILES[name]} is not the file the statement signed (${got.bytes} bytes, sha256 ${got.sha256.slice(0, 12)}…; signed: ${want.bytes} bytes, ${want.sha256.slice(0, 12)}…)`,
      });
    }
  }
  const join = opts.pool ? new ArchiveJoin(opts.pool, statement.archiveId, report) : undefined;
  if (join) {
    result.joined = true;
    await join.checkSystemEntry(archiveFileDigest(file));
  }
  const walked = await walk(dir, file, report, join);
  await join?.finish();
  result.streams = walked.streams;
  result.entries = walked.entries;
  result.ok = problems.length === 0;
  return result;
}

/** statement.json parsed; null (and a bad_statement problem) when it is unreadable or not one. */
export async function readStatement(
  dir: string,
  report: (p: ArchiveProblem) => void,
): Promise<ArchiveFile | null> {
  const where = path.join(dir, ARCHIVE_FILES.statement);
  const bad = (message: string) => {
    report({ kind: "bad_statement", stream: null, seq: null, message });
    return null;
  };
  let text: string;
  try {
    text = await readFile(where, "utf8");
  } catch (err) {
    return bad(`cannot read ${where}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return bad(`${where} is not JSON`);
  }
  const parsed = archiveFileSchema.safeParse(json);
  if (!parsed.success) {
    return bad(`${where} is not an archive statement: ${describeIssues(parsed.error)}`);
  }
  return parsed.data;
}

/** Which key the statement's signature holds under; null (and a bad_signature problem) when none. */
export function checkSignature(
  file: ArchiveFile,
  configured: KeyObject | undefined,
  report: (p: ArchiveProblem) => void,
): "configured" | "embedded" | null {
  const { statement } = file;
  const fail = (message: string) => {
    report({ kind: "bad_signature", stream: null, seq: null, message });
    return null;
  };
  let key = configured;
  if (key) {
    if (statement.keyId !== keyId(key)) {
      return fail(
        `the statement names key ${statement.keyId}, not the configured key ${keyId(key)}: signed by another key`,
      );
    }
  } else {
    try {
      key = parsePublicKey(file.publicKey, "statement.json publicKey");
    } catch (err) {
      return fail((err as Error).message);
    }
    if (keyId(key) !== statement.keyId) {
      return fail(
        `statement.json's publicKey is not the key its statement names (${statement.keyId})`,
      );
    }
  }
  if (!verifyText(key, archiveStatementText(statement), file.signature)) {
    return fail("the signature does not verify: statement.json was altered or forged");
  }
  return configured ? "configured" : "embedded";
}

type Walked = { streams: number; entries: number };

/** Both files side by side, in the stream order they share, each chain checked from genesis. */
async function walk(
  dir: string,
  file: ArchiveFile,
  report: (p: ArchiveProblem) => void,
  join: ArchiveJoin | undefined,
): Promise<Walked> {
  const { statement } = file;
  const check = new ChainCheck(new Map());
  const heads = gzipLines(path.join(dir, ARCHIVE_FILES.heads));
  const entries = entryRows(path.join(dir, ARCHIVE_FILES.entries), report);
  const digest = createHash("sha256");
  let streams = 0;
  let entryCount = 0;
  let next = await entries.next();
  let previous: string | null = null;
  const before = new Date(statement.before).getTime();

  /** Entries of a stream the heads file does not list (or lists out of place). */
  const orphans = async (upTo: string | null) => {
    while (!next.done && (upTo === null || compareBytes(next.value.stream, upTo) < 0)) {
      const stream = next.value.stream;
      const cur = check.start(stream);
      while (!next.done && next.value.stream === stream) {
        check.entry(cur, next.value);
        entryCount += 1;
        await join?.entry(next.value, rowHash(next.value.prev_hash, next.value));
        next = await entries.next();
      }
      check.finish(cur, undefined);
    }
  };

  let lineNo = 0;
  for await (const line of heads) {
    lineNo += 1;
    let head: ArchiveHead;
    try {
      head = archiveHeadSchema.parse(JSON.parse(line));
    } catch {
      report(badLine(ARCHIVE_FILES.heads, lineNo));
      continue;
    }
    streams += 1;
    digest.update(headLine(head), "utf8");
    if (previous !== null && compareBytes(previous, head.stream) >= 0) {
      report({
        kind: "bad_order",
        stream: head.stream,
        seq: null,
        message: `${ARCHIVE_FILES.heads} lists ${head.stream} after ${previous}: not in byte order`,
      });
    }
    previous = head.stream;
    if (head.stream !== taskStream(head.taskId) || new Date(head.closedAt).getTime() >= before) {
      report({
        kind: "bad_line",
        stream: head.stream,
        seq: null,
        message: `${head.stream} is not a task stream closed before ${statement.before} (task ${head.taskId}, closed ${head.closedAt})`,
      });
    }
    await orphans(head.stream);
    const cur: StreamCursor = check.start(head.stream);
    let any = false;
    while (!next.done && next.value.stream === head.stream) {
      any = true;
      check.entry(cur, next.value);
      entryCount += 1;
      await join?.entry(next.value, rowHash(next.value.prev_hash, next.value));
      next = await entries.next();
    }
    if (any) check.finish(cur, { seq: head.seq, hash: head.hash });
    else
      check.report({
        stream: head.stream,
        seq: null,
        entryId: null,
        problem: "missing_entries",
        message: `${ARCHIVE_FILES.heads} lists ${head.stream} at seq ${head.seq}, but ${ARCHIVE_FILES.entries} holds none of its entries`,
      });
    await join?.head(head);
  }
  await orphans(null);

  for (const p of check.problems) {
    // The chain check speaks of the database's head rows; here the heads are the heads file.
    const message =
      p.problem === "missing_head"
        ? `${p.stream} has entries in ${ARCHIVE_FILES.entries} but no line in ${ARCHIVE_FILES.heads}`
        : p.message;
    report({ kind: p.problem as ArchiveProblemKind, stream: p.stream, seq: p.seq, message });
  }
  if (streams !== statement.streams || entryCount !== statement.entries) {
    report({
      kind: "count_mismatch",
      stream: null,
      seq: null,
      message: `the files hold ${streams} streams and ${entryCount} entries; the statement signed ${statement.streams} streams and ${statement.entries} entries`,
    });
  }
  const got = digest.digest("hex");
  if (got !== statement.headsDigest) {
    report({
      kind: "digest_mismatch",
      stream: null,
      seq: null,
      message: `the heads digest to ${got.slice(0, 12)}…; the statement signed ${statement.headsDigest.slice(0, 12)}…`,
    });
  }
  return { streams, entries: entryCount };
}

function badLine(name: string, line: number): ArchiveProblem {
  return {
    kind: "bad_line",
    stream: null,
    seq: null,
    message: `${name} line ${line} is not a valid line`,
  };
}

/** A line of the entries file: a row as the chain check takes it, with the hash it says it chains onto. */
export type ArchiveEntryRow = EntryRow & { prev_hash: string };

/** A line of the entries file as the row the chain check takes. */
export function entryRowOf(e: ArchiveEntry): ArchiveEntryRow {
  return {
    id: e.id,
    stream: e.stream,
    seq: e.seq,
    at: new Date(e.at),
    kind: e.kind,
    actor: e.actor,
    task_id: e.taskId,
    key: e.key,
    data: e.data as JsonValue,
    prev_hash: e.prevHash,
    hash: e.hash,
  };
}

/** The entries file as the rows the chain check takes; a line that does not parse is reported and skipped. */
async function* entryRows(
  file: string,
  report: (p: ArchiveProblem) => void,
): AsyncGenerator<ArchiveEntryRow> {
  let lineNo = 0;
  for await (const line of gzipLines(file)) {
    lineNo += 1;
    let e: ArchiveEntry;
    try {
      e = archiveEntrySchema.parse(JSON.parse(line));
    } catch {
      report(badLine(ARCHIVE_FILES.entries, lineNo));
      continue;
    }
    yield entryRowOf(e);
  }
}
