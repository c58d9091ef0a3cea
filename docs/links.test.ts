// The README stays a five-minute read and the reference in docs/ stays reachable: the README's
// size, every relative link (and #anchor) of README.md and docs/*.md, every docs page linked
// from the README, and tables written compact rather than padded to their widest cell.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.join(import.meta.dirname, "..");
const README = path.join(ROOT, "README.md");
const DOCS = path.join(ROOT, "docs");
/** 25 KB, counted in bytes as a browser downloads them. */
const README_MAX_BYTES = 25_000;

const pages = [
  README,
  ...readdirSync(DOCS)
    .filter((f) => f.endsWith(".md"))
    .map((f) => path.join(DOCS, f)),
];

/** The lines that are prose: fenced code blocks left out. */
function proseLines(text: string): string[] {
  let fenced = false;
  return text.split("\n").filter((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/** Link targets of `[text](target)` and `![alt](target)`, inline code left out. */
function linkTargets(text: string): string[] {
  const targets: string[] = [];
  for (const line of proseLines(text)) {
    const prose = line.replace(/`[^`]*`/g, "");
    for (const m of prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (m[1] !== undefined) targets.push(m[1]);
    }
  }
  return targets;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/`/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** Every anchor the page's headings make, with GitHub's -1, -2 … for repeated ones. */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of proseLines(readFileSync(file, "utf8"))) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m?.[1]) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const target of linkTargets(readFileSync(file, "utf8"))) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: …
    const [rawPath = "", anchor] = target.split("#");
    const resolved = rawPath === "" ? file : path.resolve(path.dirname(file), rawPath);
    if (!existsSync(resolved)) {
      broken.push(`${target}: no such file`);
      continue;
    }
    if (anchor === undefined || anchor === "") continue;
    if (!resolved.endsWith(".md") || statSync(resolved).isDirectory()) continue;
    if (!anchorsOf(resolved).has(anchor)) broken.push(`${target}: no heading makes #${anchor}`);
  }
  return broken;
}

describe("README.md and docs/", () => {
  it(`README.md is at most ${README_MAX_BYTES.toLocaleString("en-US")} bytes`, () => {
    expect(statSync(README).size).toBeLessThanOrEqual(README_MAX_BYTES);
  });

  it.each(pages.map((p) => [path.relative(ROOT, p), p]))(
    "every relative link of %s resolves to a file (and its heading)",
    (_name, file) => {
      expect(linkTargets(readFileSync(file, "utf8")).length).toBeGreaterThan(0);
      expect(brokenLinks(file)).toEqual([]);
    },
  );

  it("links every page of docs/ from the README", () => {
    const linked = new Set(
      linkTargets(readFileSync(README, "utf8")).map((t) =>
        path.resolve(ROOT, t.split("#")[0] ?? ""),
      ),
    );
    const unlinked = pages.filter((p) => p !== README && !linked.has(p));
    expect(unlinked.map((p) => path.relative(ROOT, p))).toEqual([]);
  });

  it("writes tables compact, not padded to the widest cell", () => {
    const padded = pages.flatMap((file) =>
      proseLines(readFileSync(file, "utf8"))
        .filter((line) => line.startsWith("|") && /( {2,}\||\| {2,}|-{4,})/.test(line))
        .map((line) => `${path.relative(ROOT, file)}: ${line.slice(0, 80)}`),
    );
    expect(padded).toEqual([]);
  });

  it("finds a broken link and a missing heading (the checks can fail)", () => {
    expect(slug("Tamper evidence: what a `verify` can hide")).toBe(
      "tamper-evidence-what-a-verify-can-hide",
    );
    expect(linkTargets("see [a](docs/a.md#x) and `[b](c.md)`, ![s](s.png)")).toEqual([
      "docs/a.md#x",
      "s.png",
    ]);
    expect(brokenLinks(README).length).toBe(0);
    expect(anchorsOf(README).has("the-demo-tour")).toBe(true);
    expect(anchorsOf(README).has("no-such-heading")).toBe(false);
  });
});
