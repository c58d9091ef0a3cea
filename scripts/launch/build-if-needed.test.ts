// npm start's build step: the console phases it reads out of `next build`'s output, the build run
// through a stand-in `next` (log file, recorded hash, failure, Ctrl-C), and a check that the
// hashed inputs cover every file the dashboard imports, so an edit there is never left unbuilt.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../db/open";
import {
  alongsideBuild,
  buildPhase,
  INPUTS,
  inputFiles,
  isBuilt,
  progressLine,
  type RunningBuild,
  START_BUILD_ENV,
  sourceHash,
  startBuild,
} from "./build-if-needed";

describe("buildPhase", () => {
  it("names the phases of next build's output (as Next 16 prints them)", () => {
    const lines = [
      "▲ Next.js 16.4.6 (Turbopack)",
      "  Creating an optimized production build ...",
      "✓ Compiled successfully in 4.4min",
      "  Running TypeScript ...",
      "  Skipping validation of types",
      "  Collecting page data using 1 worker ...",
      "  Generating static pages using 1 worker (0/2) ...",
      "  Finalizing page optimization ...",
    ];
    expect(lines.map(buildPhase)).toEqual([
      undefined,
      "compiling",
      "compiled in 4.4min",
      "checking types",
      "type-check skipped (tsc runs in CI)",
      "collecting page data",
      "prerendering pages",
      "finalizing",
    ]);
  });

  it("leaves the route table and other lines to the log", () => {
    for (const line of ["Route (app)", "┌ ƒ /", "├ ƒ /api/health", "ƒ Proxy (Middleware)", ""]) {
      expect(buildPhase(line)).toBeUndefined();
    }
  });

  it("reads a line through its colour codes", () => {
    expect(
      buildPhase("\u001b[32m✓\u001b[39m Compiled successfully in \u001b[1m38s\u001b[22m"),
    ).toBe("compiled in 38s");
  });

  it("says how long the build has been at it", () => {
    expect(progressLine("compiling", 14.6)).toBe("  dashboard: compiling (15 s)");
    expect(progressLine("compiling", 30, true)).toBe("  dashboard: still compiling (30 s)");
  });
});

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A project root whose `next` is a shell script: prints a build's lines, then `exit`s. */
function fakeProject(script: string): string {
  const root = mkdtempSync(path.join(tmpdir(), "build-if-needed-"));
  made.push(root);
  mkdirSync(path.join(root, "node_modules", ".bin"), { recursive: true });
  mkdirSync(path.join(root, "app"));
  writeFileSync(path.join(root, "app", "page.tsx"), "export default function Page() {}\n");
  const next = path.join(root, "node_modules", ".bin", "next");
  writeFileSync(next, `#!/bin/sh\n${script}\n`);
  chmodSync(next, 0o755);
  return root;
}

const BUILD_LINES = `echo "  Creating an optimized production build ..."
echo "✓ Compiled successfully in 2s"
echo "  start build env: $${START_BUILD_ENV}"
echo "Route (app)"
echo "┌ ƒ /"
echo "  Collecting page data using 1 worker ..." >&2`;

describe("startBuild", () => {
  it("tells the phases, keeps the rest in the log, and records the hash it built", async () => {
    const root = fakeProject(`${BUILD_LINES}\nmkdir -p .next && echo id > .next/BUILD_ID`);
    const said: string[] = [];
    const logFile = path.join(root, ".data", "build.log");
    const hash = sourceHash(root);
    expect(isBuilt(root, hash)).toBe(false);

    await startBuild(root, hash, { logFile, say: (l) => said.push(l), heartbeatMs: 3_600_000 })
      .done;

    expect(said.map((l) => l.replace(/\(\d+ s\)$/, "(N s)"))).toEqual([
      "  dashboard: compiling (N s)",
      "  dashboard: compiled in 2s (N s)",
      "  dashboard: collecting page data (N s)",
      expect.stringMatching(/^Dashboard built in \d+ s\.$/),
    ]);
    const log = readFileSync(logFile, "utf8");
    expect(log).toContain("Route (app)");
    expect(log).toContain("Collecting page data");
    // npm start's build skips Next's type-check and build cache (next.config.ts reads this).
    expect(log).toContain("start build env: 1");
    expect(isBuilt(root, hash)).toBe(true);
    writeFileSync(
      path.join(root, "app", "page.tsx"),
      "export default function Page() { return 1 }\n",
    );
    expect(isBuilt(root, sourceHash(root))).toBe(false);
  });

  it("fails with the end of the log and records nothing", async () => {
    const root = fakeProject(`${BUILD_LINES}\necho "Type error: boom" >&2\nexit 3`);
    const logFile = path.join(root, "build.log");
    const hash = sourceHash(root);
    const build = startBuild(root, hash, { logFile, say: () => {}, heartbeatMs: 3_600_000 });
    await expect(build.done).rejects.toThrow(/exit 3.*\n(.*\n)*Type error: boom/);
    expect(existsSync(path.join(root, ".next", "agent-ledger-source-hash"))).toBe(false);
  });

  it("stops the build when asked (Ctrl-C during a first start)", async () => {
    const root = fakeProject(`echo "  Creating an optimized production build ..."\nexec sleep 60`);
    const said: string[] = [];
    const build = startBuild(root, sourceHash(root), {
      logFile: path.join(root, "build.log"),
      say: (l) => {
        said.push(l);
        build.stop();
      },
      heartbeatMs: 3_600_000,
    });
    await expect(build.done).rejects.toThrow("the build was stopped");
    expect(said).toEqual([expect.stringContaining("compiling")]);
  });
});

/** A build that settles when told to; stop() makes it fail as a stopped build does. */
function heldBuild(): RunningBuild & { finish: (err?: Error) => void; stops: number } {
  let settle: (err?: Error) => void = () => {};
  const build = {
    stops: 0,
    done: new Promise<void>((resolve, reject) => {
      settle = (err) => (err ? reject(err) : resolve());
    }),
    finish: (err?: Error) => settle(err),
    stop: () => {
      build.stops += 1;
      settle(new Error("the build was stopped"));
    },
  };
  return build;
}

describe("alongsideBuild", () => {
  it("waits for the build and the steps, and hands over each step's value", async () => {
    const build = heldBuild();
    const result = alongsideBuild(build, [Promise.resolve("db"), Promise.resolve(7)] as const);
    build.finish();
    const { settled, failure } = await result;
    expect(failure).toBeUndefined();
    expect(settled).toEqual([
      { status: "fulfilled", value: "db" },
      { status: "fulfilled", value: 7 },
    ]);
    expect(build.stops).toBe(0);
  });

  it("stops the build when a step fails, and reports the step's error", async () => {
    const build = heldBuild();
    const broken = new Error("PostgreSQL did not start");
    const { settled, failure } = await alongsideBuild(build, [
      Promise.reject(broken),
      Promise.resolve("receivers"),
    ] as const);
    expect(build.stops).toBe(1);
    expect(failure).toBe(broken);
    // What did start is there to be stopped.
    expect(settled[1]).toEqual({ status: "fulfilled", value: "receivers" });
  });

  it("reports a failed build with the steps that started", async () => {
    const build = heldBuild();
    const result = alongsideBuild(build, [Promise.resolve("db")] as const);
    build.finish(new Error("next build failed (exit 1)"));
    const { settled, failure } = await result;
    expect((failure as Error).message).toBe("next build failed (exit 1)");
    expect(settled).toEqual([{ status: "fulfilled", value: "db" }]);
  });

  it("needs no build when the dashboard is current", async () => {
    const { settled, failure } = await alongsideBuild(undefined, [Promise.resolve(1)] as const);
    expect(failure).toBeUndefined();
    expect(settled).toEqual([{ status: "fulfilled", value: 1 }]);
  });
});

/** Relative and `@/` imports of a source file, resolved to paths relative to root. */
function importsOf(root: string, rel: string): string[] {
  const text = readFileSync(path.join(root, rel), "utf8");
  const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*["']((?:\.{1,2}|@)\/[^"']+)["']/g)].map(
    (m) => m[1] as string,
  );
  const out: string[] = [];
  for (const spec of specs) {
    const base = spec.startsWith("@/")
      ? path.join(root, spec.slice(2))
      : path.resolve(path.dirname(path.join(root, rel)), spec);
    const file = ["", ".ts", ".tsx", ".mjs", ".js", "/index.ts", "/index.tsx"]
      .map((ext) => base + ext)
      .find((f) => existsSync(f) && statSync(f).isFile());
    out.push(path.relative(root, file ?? base));
  }
  return out;
}

/** Imports reachable from the inputs that lead to a file the inputs do not cover. */
function uncoveredImports(root: string, inputs: string[]): string[] {
  const covered = new Set(inputFiles(root, inputs));
  const missing = new Set<string>();
  for (const file of covered) {
    if (!/\.(ts|tsx|mjs)$/.test(file)) continue;
    for (const target of importsOf(root, file)) {
      if (!covered.has(target)) missing.add(`${file} → ${target}`);
    }
  }
  return [...missing].sort();
}

describe("INPUTS", () => {
  it("covers every file the dashboard's sources import", () => {
    expect(uncoveredImports(PROJECT_ROOT, INPUTS)).toEqual([]);
  });

  it("the check finds an import from outside the inputs", () => {
    const root = fakeProject("exit 0");
    mkdirSync(path.join(root, "db"));
    writeFileSync(path.join(root, "db", "retry.ts"), "export const x = 1;\n");
    writeFileSync(path.join(root, "app", "page.tsx"), 'import { x } from "../db/retry";\n');
    expect(uncoveredImports(root, ["app"])).toEqual(["app/page.tsx → db/retry.ts"]);
    expect(uncoveredImports(root, ["app", "db/retry.ts"])).toEqual([]);
  });
});
