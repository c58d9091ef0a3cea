// The archive's files: gzip'd JSON lines written a member at a time and read back a line at a
// time, or one key's members alone through their index, and a file's sha256 and size, so
// neither side holds an archive in memory.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { createGunzip, gunzip as gunzipCb, gzip as gzipCb } from "node:zlib";
import type { ArchiveMember } from "../../domain/archive";
import { compareBytes } from "../../domain/checkpoint";

const gzip = promisify(gzipCb);
const gunzip = promisify(gunzipCb);

/** How much text one gzip member holds before the next begins (at a write's boundary). */
const MEMBER_BYTES = 256 * 1024;

/**
 * Lines into FILE as a series of gzip members (one gzip file to any reader), each holding whole
 * writes of at most about MEMBER_BYTES of text, or one larger write; every write names the key
 * (stream) its lines belong to, in order, so each member's byte range and first and last keys
 * make an index that reads one stream without gunzipping the whole file.
 */
export class GzipLineWriter {
  private readonly handle: Promise<FileHandle>;
  private text: string[] = [];
  private size = 0;
  private first = "";
  private last = "";
  private offset = 0;
  readonly members: ArchiveMember[] = [];

  constructor(
    readonly file: string,
    private readonly memberBytes = MEMBER_BYTES,
  ) {
    // flags "wx": the archive never overwrites a file.
    this.handle = open(file, "wx");
    // write() and close() report the error; this keeps it from being unhandled until then.
    this.handle.catch(() => undefined);
  }

  async write(text: string, key: string): Promise<void> {
    if (text === "") return;
    if (this.size > 0 && this.size + text.length > this.memberBytes) await this.cut();
    if (this.size === 0) this.first = key;
    this.last = key;
    this.text.push(text);
    this.size += text.length;
  }

  private async cut(): Promise<void> {
    const bytes = await gzip(this.text.join(""));
    await (await this.handle).write(bytes);
    this.members.push([this.offset, bytes.length, this.first, this.last]);
    this.offset += bytes.length;
    this.text = [];
    this.size = 0;
  }

  /** Ends the file (an empty one is one empty member, still gzip); throws what went wrong. */
  async close(): Promise<void> {
    const handle = await this.handle;
    try {
      if (this.size > 0) await this.cut();
      else if (this.offset === 0) await handle.write(await gzip(""));
    } finally {
      await handle.close();
    }
  }
}

/**
 * The lines of KEY in a file GzipLineWriter wrote, read through its members' index: only the
 * members whose key range holds it are read and gunzipped. Lines of other keys in those members
 * are left out by `keyOf`.
 */
export async function memberLines(
  file: string,
  members: readonly ArchiveMember[],
  key: string,
  keyOf: (line: string) => string,
): Promise<string[]> {
  const lines: string[] = [];
  const handle = await open(file, "r");
  try {
    for (const [offset, bytes] of membersHolding(members, key)) {
      const buf = Buffer.alloc(bytes);
      const { bytesRead } = await handle.read(buf, 0, bytes, offset);
      if (bytesRead !== bytes) throw new Error(`${file} ends inside a member (at ${offset})`);
      const text = (await gunzip(buf)).toString("utf8");
      for (const line of text.split("\n")) {
        if (line !== "" && keyOf(line) === key) lines.push(line);
      }
    }
  } finally {
    await handle.close();
  }
  return lines;
}

/** The members whose [first, last] holds KEY, in file order (members run in key byte order). */
export function membersHolding(members: readonly ArchiveMember[], key: string): ArchiveMember[] {
  let lo = 0;
  let hi = members.length;
  // The first member whose last key is not before KEY.
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareBytes((members[mid] as ArchiveMember)[3], key) < 0) lo = mid + 1;
    else hi = mid;
  }
  const found: ArchiveMember[] = [];
  for (let i = lo; i < members.length; i++) {
    const m = members[i] as ArchiveMember;
    if (compareBytes(m[2], key) > 0) break;
    found.push(m);
  }
  return found;
}

/** A gzip'd file's lines (without their "\n"), one at a time. */
export async function* gzipLines(file: string): AsyncGenerator<string> {
  const source = createReadStream(file);
  const gunzip = createGunzip();
  source.on("error", (err) => gunzip.destroy(err));
  const lines = createInterface({
    input: source.pipe(gunzip),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  try {
    for await (const line of lines) yield line;
  } finally {
    lines.close();
    source.destroy();
  }
}

export type FileDigest = { sha256: string; bytes: number };

/** sha256 and size of a file's bytes as stored. */
export async function fileDigest(file: string): Promise<FileDigest> {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of createReadStream(file)) {
    const buf = chunk as Buffer;
    hash.update(buf);
    bytes += buf.length;
  }
  return { sha256: hash.digest("hex"), bytes };
}
