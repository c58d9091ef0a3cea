// The archive's files as streams: gzip'd JSON lines written with backpressure and read back a
// line at a time, and a file's sha256 and size, so neither side holds an archive in memory.
import { createHash } from "node:crypto";
import { once } from "node:events";
import { createReadStream, createWriteStream } from "node:fs";
import { createInterface } from "node:readline";
import { pipeline } from "node:stream/promises";
import { createGunzip, createGzip } from "node:zlib";

/** Lines into FILE through gzip; `write` waits while gzip's buffer is full. */
export class GzipLineWriter {
  private readonly gzip = createGzip();
  private readonly done: Promise<void>;

  constructor(readonly file: string) {
    // flags "wx": the archive never overwrites a file.
    this.done = pipeline(this.gzip, createWriteStream(file, { flags: "wx" }));
    // pipeline reports the error; this keeps an early one from being unhandled until close().
    this.done.catch(() => undefined);
  }

  async write(text: string): Promise<void> {
    if (text === "") return;
    if (!this.gzip.write(text)) {
      const stop = new AbortController();
      await Promise.race([
        once(this.gzip, "drain", { signal: stop.signal }),
        this.done.then(() => undefined),
      ]).catch(() => undefined);
      stop.abort();
    }
  }

  /** Ends the file; throws what went wrong writing it. */
  async close(): Promise<void> {
    this.gzip.end();
    await this.done;
  }
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
