// The archive's data files as gzip members with an index: any gzip reader reads the file whole,
// and one key's lines are read from its members alone.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { GzipLineWriter, gzipLines, memberLines, membersHolding } from "./archive-files";

const dir = mkdtempSync(path.join(tmpdir(), "archive-files-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const keyOf = (line: string) => line.split(" ")[0] as string;
/** Streams a…h, a few lines each, stream e long enough to span several members. */
const streams = ["a", "b", "c", "d", "e", "f", "g", "h"];
const linesOf = (s: string) =>
  Array.from({ length: s === "e" ? 40 : 3 }, (_, i) => `${s} line ${i} ${"x".repeat(20)}`);

async function written(name: string, memberBytes: number) {
  const file = path.join(dir, name);
  const out = new GzipLineWriter(file, memberBytes);
  for (const s of streams) {
    const lines = linesOf(s);
    // Long streams come in batches, as the archive writes them.
    for (let i = 0; i < lines.length; i += 10) {
      await out.write(
        lines
          .slice(i, i + 10)
          .map((l) => `${l}\n`)
          .join(""),
        s,
      );
    }
  }
  await out.close();
  return { file, members: out.members };
}

describe("gzip members with an index", () => {
  it("is one gzip file to a reader that knows nothing of members", async () => {
    const { file, members } = await written("whole.gz", 200);
    expect(members.length).toBeGreaterThan(5);
    const all: string[] = [];
    for await (const line of gzipLines(file)) all.push(line);
    expect(all).toEqual(streams.flatMap(linesOf));
    expect(gunzipSync(readFileSync(file)).toString("utf8").split("\n").length - 1).toBe(all.length);
  });

  it("reads one stream from its members, including one that spans several", async () => {
    const { file, members } = await written("index.gz", 200);
    expect(membersHolding(members, "e").length).toBeGreaterThan(1);
    for (const s of streams) {
      expect(await memberLines(file, members, s, keyOf)).toEqual(linesOf(s));
    }
    expect(await memberLines(file, members, "zz", keyOf)).toEqual([]);
    expect(await memberLines(file, members, "0", keyOf)).toEqual([]);
  });

  it("reads no member but the stream's own: the others may be anything", async () => {
    const { file, members } = await written("damaged.gz", 200);
    const [own] = membersHolding(members, "b");
    const bytes = readFileSync(file);
    for (const m of members) {
      if (m === own) continue;
      bytes.fill(0, m[0], m[0] + m[1]);
    }
    writeFileSync(file, bytes);
    expect(await memberLines(file, members, "b", keyOf)).toEqual(linesOf("b"));
    await expect(memberLines(file, members, "e", keyOf)).rejects.toThrow();
  });

  it("an empty file is still gzip", async () => {
    const file = path.join(dir, "empty.gz");
    const out = new GzipLineWriter(file);
    await out.close();
    expect(out.members).toEqual([]);
    expect(gunzipSync(readFileSync(file)).length).toBe(0);
  });

  it("never overwrites a file", async () => {
    const file = path.join(dir, "taken.gz");
    writeFileSync(file, "x");
    const out = new GzipLineWriter(file);
    await expect(out.close()).rejects.toThrow(/EEXIST/);
  });
});
