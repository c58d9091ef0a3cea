// One archived stream read back from its archive's files (issue 23), for the screens of a task
// whose entries the database no longer holds: the archive found by id under LEDGER_ARCHIVE_DIR,
// its statement's signature and both files' sha256 checked as verify --archive checks them, and
// the stream's chain recomputed from genesis to the head the heads file (and the database) give.
import type { KeyObject } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import {
  ARCHIVE_FILES,
  type ArchiveFile,
  type ArchiveHead,
  type ArchiveIndex,
  type ArchiveProblem,
  archiveEntrySchema,
  archiveHeadSchema,
  archiveIndexSchema,
} from "../../domain/archive";
import { compareBytes } from "../../domain/checkpoint";
import { fileDigest, gzipLines, memberLines } from "./archive-files";
import { checkSignature, entryRowOf, readStatement } from "./archive-verify";
import { ChainCheck, type EntryRow, type Head } from "./chain-check";

/** Where archives are and which key signs them (LEDGER_ARCHIVE_DIR, LEDGER_PUBLIC_KEY). */
export type ArchiveConfig = { dir: string | undefined; publicKey: KeyObject | undefined };

export type ArchiveUnavailable = {
  reason: "not_configured" | "not_found" | "not_verified";
  message: string;
};

export type ArchivedStreamRead =
  | { ok: true; entries: EntryRow[]; key: "configured" | "embedded" }
  | { ok: false; unavailable: ArchiveUnavailable };

const unavailable = (
  reason: ArchiveUnavailable["reason"],
  message: string,
): ArchivedStreamRead => ({ ok: false, unavailable: { reason, message } });

/** archive id → its directory, per LEDGER_ARCHIVE_DIR; rebuilt when an id is not in it. */
const dirsById = new Map<string, Map<string, string>>();

async function scan(root: string): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const subdirs = await readdir(root, { withFileTypes: true });
  for (const d of subdirs) {
    if (!d.isDirectory()) continue;
    const dir = path.join(root, d.name);
    try {
      const json: unknown = JSON.parse(
        await readFile(path.join(dir, ARCHIVE_FILES.statement), "utf8"),
      );
      const id = (json as { statement?: { archiveId?: unknown } }).statement?.archiveId;
      if (typeof id === "string") found.set(id, dir);
    } catch {
      // Not an archive (or not a readable one): it cannot be the one asked for by id.
    }
  }
  dirsById.set(root, found);
  return found;
}

async function findArchive(root: string, archiveId: string): Promise<string | null> {
  const known = dirsById.get(root)?.get(archiveId);
  // A directory moved or removed since the scan is looked for again.
  if (
    known !== undefined &&
    (await stat(path.join(known, ARCHIVE_FILES.statement)).catch(() => null))
  ) {
    return known;
  }
  return (await scan(root)).get(archiveId) ?? null;
}

/** `${file} ${size} ${mtime}` → that file's digest: each file is hashed once until it changes. */
const digests = new Map<string, Promise<{ sha256: string; bytes: number }>>();

/** Null when the file on disk is the one the statement signed; else what differs. */
async function checkFile(
  dir: string,
  name: "entries" | "heads",
  file: ArchiveFile,
): Promise<string | null> {
  const where = path.join(dir, ARCHIVE_FILES[name]);
  const st = await stat(where).catch(() => null);
  if (st === null) return `${where} is missing`;
  const cacheKey = `${where} ${st.size} ${st.mtimeMs}`;
  let digest = digests.get(cacheKey);
  if (digest === undefined) {
    digest = fileDigest(where);
    digests.set(cacheKey, digest);
    digest.catch(() => digests.delete(cacheKey));
  }
  const got = await digest;
  const want = file.statement.files[name];
  if (got.sha256 === want.sha256 && got.bytes === want.bytes) return null;
  return `${ARCHIVE_FILES[name]} is not the file the statement signed (${got.bytes} bytes, sha256 ${got.sha256.slice(0, 12)}…; signed: ${want.bytes} bytes, ${want.sha256.slice(0, 12)}…)`;
}

/** `${file} ${size} ${mtime}` → the archive's index.json, or null where it has none usable. */
const indexes = new Map<string, Promise<ArchiveIndex | null>>();

/**
 * The archive's member index: what lets one stream be read without gunzipping whole files. An
 * archive written before it, or one whose index is missing or unreadable, is read by scanning.
 */
async function readIndex(dir: string): Promise<ArchiveIndex | null> {
  const where = path.join(dir, ARCHIVE_FILES.index);
  const st = await stat(where).catch(() => null);
  if (st === null) return null;
  const cacheKey = `${where} ${st.size} ${st.mtimeMs}`;
  let index = indexes.get(cacheKey);
  if (index === undefined) {
    index = readFile(where, "utf8")
      .then((text) => archiveIndexSchema.safeParse(JSON.parse(text)).data ?? null)
      .catch(() => null);
    indexes.set(cacheKey, index);
  }
  return index;
}

/**
 * The lines of `stream` in one data file: through the index's members when it has them (and
 * they hold any), else by reading the file through, which holds streams in byte order. An index
 * that points wrong costs the full read, never a different answer: what is returned is checked
 * against the signed head.
 */
async function streamLines(
  dir: string,
  name: "entries" | "heads",
  stream: string,
  keyOf: (line: string) => string,
): Promise<string[]> {
  const file = path.join(dir, ARCHIVE_FILES[name]);
  const index = await readIndex(dir);
  if (index !== null) {
    const found = await memberLines(file, index[name], stream, keyOf).catch(() => []);
    if (found.length > 0) return found;
  }
  const lines: string[] = [];
  for await (const line of gzipLines(file)) {
    const order = compareBytes(keyOf(line), stream);
    if (order < 0) continue;
    if (order > 0) break;
    lines.push(line);
  }
  return lines;
}

const headStream = (line: string) => archiveHeadSchema.parse(JSON.parse(line)).stream;

/** The stream's line in the heads file. */
async function findHead(dir: string, stream: string): Promise<ArchiveHead | null> {
  const [line] = await streamLines(dir, "heads", stream, headStream);
  return line === undefined ? null : archiveHeadSchema.parse(JSON.parse(line));
}

/** A line starts `{"id":N,"stream":"…"`: the stream read without parsing the whole line. */
const STREAM_PREFIX = /^\{"id":-?\d+,"stream":("(?:[^"\\]|\\.)*")/;

function streamOf(line: string): string {
  const m = STREAM_PREFIX.exec(line.slice(0, 512));
  const literal = m?.[1];
  if (literal !== undefined) return JSON.parse(literal) as string;
  return archiveEntrySchema.parse(JSON.parse(line)).stream;
}

/** The stream's entries in the entries file, by seq. */
async function streamEntries(dir: string, stream: string): Promise<EntryRow[]> {
  const lines = await streamLines(dir, "entries", stream, streamOf);
  return lines.map((line) => entryRowOf(archiveEntrySchema.parse(JSON.parse(line))));
}

/**
 * The entries of `stream` from archive `archiveId`, verified: the statement signed by the
 * configured key (else the key it carries, as verify does), both files the ones it signed, the
 * chain whole from seq 1 and ending at the heads file's head, and at `dbHead` (the database's
 * head row) when given. Otherwise why they cannot be read.
 */
export async function readArchivedStream(
  config: ArchiveConfig,
  archiveId: string,
  stream: string,
  dbHead?: Head,
): Promise<ArchivedStreamRead> {
  if (config.dir === undefined) {
    return unavailable(
      "not_configured",
      "LEDGER_ARCHIVE_DIR is not configured: this server does not read archive files",
    );
  }
  let dir: string | null;
  try {
    dir = await findArchive(config.dir, archiveId);
  } catch (err) {
    return unavailable(
      "not_found",
      `cannot read LEDGER_ARCHIVE_DIR (${config.dir}): ${(err as Error).message}`,
    );
  }
  if (dir === null) {
    return unavailable("not_found", `no directory in ${config.dir} holds archive ${archiveId}`);
  }
  const problems: ArchiveProblem[] = [];
  const report = (p: ArchiveProblem) => {
    problems.push(p);
  };
  const file = await readStatement(dir, report);
  const key = file ? checkSignature(file, config.publicKey, report) : null;
  if (!file || key === null) {
    return unavailable("not_verified", problems[0]?.message ?? "statement.json does not verify");
  }
  if (file.statement.archiveId !== archiveId) {
    // The directory was replaced since it was scanned.
    dirsById.delete(config.dir);
    return unavailable("not_found", `${dir} no longer holds archive ${archiveId}`);
  }
  try {
    for (const name of ["entries", "heads"] as const) {
      const wrong = await checkFile(dir, name, file);
      if (wrong !== null) return unavailable("not_verified", wrong);
    }
    const head = await findHead(dir, stream);
    if (head === null) {
      return unavailable(
        "not_verified",
        `archive ${archiveId} does not list ${stream} in ${ARCHIVE_FILES.heads}`,
      );
    }
    const rows = await streamEntries(dir, stream);
    if (rows.length === 0) {
      return unavailable(
        "not_verified",
        `${ARCHIVE_FILES.entries} of archive ${archiveId} holds none of ${stream}'s entries`,
      );
    }
    const check = new ChainCheck(new Map());
    const cur = check.start(stream);
    for (const row of rows) check.entry(cur, row);
    check.finish(cur, { seq: head.seq, hash: head.hash });
    const [problem] = check.problems;
    if (problem !== undefined) return unavailable("not_verified", problem.message);
    if (dbHead !== undefined && (dbHead.seq !== head.seq || dbHead.hash !== head.hash)) {
      return unavailable(
        "not_verified",
        `archive ${archiveId} ends ${stream} at seq ${head.seq}, the database's head row at seq ${dbHead.seq}: not the stream this ledger froze`,
      );
    }
    return { ok: true, entries: rows, key };
  } catch (err) {
    return unavailable(
      "not_verified",
      `archive ${archiveId} cannot be read: ${(err as Error).message}`,
    );
  }
}
