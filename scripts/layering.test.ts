// The layering rules of scripts/layering.ts (its header lists them) hold over this project's
// sources, and the checker itself can fail: a hand-built graph with a cycle, and a small tree
// of files that breaks each rule.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkLayering, cycles, importsOf, layeringProblems, sourceFiles } from "./layering";

describe("the project's imports", () => {
  it("keep the layering: no folder cycle, lib/domain and db/ import only what they may", () => {
    const problems = layeringProblems();
    expect(problems, `\n${problems.join("\n\n")}\n`).toEqual([]);
  });
});

describe("cycles", () => {
  it("finds every strongly connected component of more than one folder", () => {
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a", "d"]],
      ["d", ["e"]],
      ["e", ["d"]],
      ["f", ["a"]],
      ["g", []],
    ]);
    expect(cycles(graph)).toEqual([
      ["a", "b", "c"],
      ["d", "e"],
    ]);
  });

  it("finds none in a graph whose arrows point one way", () => {
    const graph = new Map([
      ["app", ["lib/actions", "lib/server/queries"]],
      ["lib/actions", ["lib/auth", "lib/server/commands"]],
      ["lib/auth", ["lib/server/commands", "lib/domain"]],
      ["lib/server/commands", ["lib/server/queries", "lib/domain"]],
      ["lib/server/queries", ["lib/domain"]],
      ["lib/domain", []],
    ]);
    expect(cycles(graph)).toEqual([]);
  });

  it("walks a long chain without running out of stack", () => {
    const n = 20_000;
    const graph = new Map(
      Array.from({ length: n }, (_, i) => [`f${i}`, [`f${(i + 1) % n}`]] as const),
    );
    const found = cycles(graph);
    expect(found).toHaveLength(1);
    expect(found[0]).toHaveLength(n);
  });
});

describe("checkLayering over a small tree", () => {
  const root = mkdtempSync(path.join(tmpdir(), "layering-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    mkdirSync(path.join(root, path.dirname(file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  };
  write("lib/env.ts", "export const env = () => ({});\n");
  write("lib/log.ts", 'import { env } from "./env";\nexport const log = env;\n');
  write("lib/domain/states.ts", 'import { log } from "../log";\nexport const s = log;\n');
  write("db/client.ts", 'import { log } from "../lib/log";\nimport "../lib/env";\n');
  write("db/schema/index.ts", 'import type { s } from "../../lib/domain/states";\n');
  write("lib/api/problems.ts", 'export * from "../auth/guard";\n');
  write("lib/auth/guard.ts", 'export const p = () => import("../api/problems");\n');
  write("components/x/list.tsx", 'import "../../db/schema";\nimport "./missing";\n');
  write("lib/server/commands/a.ts", 'import "../queries/b";\n');
  write("lib/server/queries/b.ts", "export {};\n");
  write("lib/server/queries/b.test.ts", 'import "../commands/a";\n');
  const problems = checkLayering(importsOf(root, sourceFiles(root)));
  const report = problems.join("\n\n");

  it("names lib/domain importing outside itself", () => {
    expect(report).toContain(
      'lib/domain imports nothing of ours outside lib/domain, but:\n  lib/domain/states.ts imports "../log"',
    );
  });

  it("lets db/ import lib/env and lib/domain, and names anything else", () => {
    expect(report).toContain('db/client.ts imports "../lib/log" (lib/log.ts)');
    expect(report).not.toContain("../lib/env");
    expect(report).not.toContain("db/schema/index.ts imports");
  });

  it("names db/ imported from outside its importers, through a folder's index", () => {
    expect(report).toContain(
      'components/x/list.tsx imports "../../db/schema" (db/schema/index.ts)',
    );
  });

  it("names a cycle through export-from and import(), with the imports on both sides", () => {
    expect(report).toContain("folders import each other: lib/api ↔ lib/auth");
    expect(report).toContain('lib/api/problems.ts imports "../auth/guard"');
    expect(report).toContain('lib/auth/guard.ts imports "../api/problems"');
    expect(report).toContain("lib/auth never imports lib/api or lib/actions");
  });

  it("names an import of a file that does not exist", () => {
    expect(report).toContain('components/x/list.tsx: import "./missing" names no file');
  });

  it("leaves tests out, so a test's import makes no cycle", () => {
    expect(report).not.toContain("lib/server/commands ↔ lib/server/queries");
    expect(problems).toHaveLength(6);
  });
});
