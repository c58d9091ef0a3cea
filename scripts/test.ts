// `npm test`: lint, typecheck, build, unit and integration tests (vitest, real PostgreSQL),
// and the browser tests (Playwright, real Chromium against the built app). Every stage runs
// even if an earlier one failed, and the last line is `N passed, N failed`.
//   --only vitest|e2e|lint|typecheck|build   run some stages (comma-separated)
//   --summary FILE                           also write the counts as JSON
//   --exclude FILE[,FILE]                    vitest files left out of this run
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { PROJECT_ROOT } from "../db/open";
import { markBuilt, sourceHash } from "./launch/build-if-needed";
import { type PwSuite, playwrightFailures, type VitestFile, vitestFailures } from "./test-report";

type Stage = {
  name: string;
  passed: number;
  failed: number;
  skipped: number;
  seconds: number;
  note?: string;
  /** Failed (and, for e2e, flaky) tests by name with the first line of their error. */
  failures?: string[];
};

const { values } = parseArgs({
  options: { only: { type: "string" }, summary: { type: "string" }, exclude: { type: "string" } },
  allowPositionals: false,
});
const only = values.only?.split(",").map((s) => s.trim());
const excluded = values.exclude?.split(",").map((s) => s.trim()) ?? [];
const results = path.join(PROJECT_ROOT, "test-results");
mkdirSync(results, { recursive: true });
const bin = (name: string) => path.join(PROJECT_ROOT, "node_modules", ".bin", name);

function run(
  cmd: string,
  args: string[],
  env: Record<string, string> = {},
): { ok: boolean; seconds: number } {
  const start = Date.now();
  console.log(`\n$ ${path.basename(cmd)} ${args.join(" ")}`);
  const r = spawnSync(cmd, args, {
    cwd: PROJECT_ROOT,
    stdio: "inherit",
    env: { ...process.env, ...env },
  });
  return { ok: r.status === 0, seconds: (Date.now() - start) / 1000 };
}

/** A check that is one pass or one fail (lint, typecheck, build). */
function check(name: string, cmd: string, args: string[]): Stage {
  const r = run(cmd, args);
  return { name, passed: r.ok ? 1 : 0, failed: r.ok ? 0 : 1, skipped: 0, seconds: r.seconds };
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
}

function vitest(): Stage {
  const out = path.join(results, "vitest.json");
  rmSync(out, { force: true });
  const r = run(bin("vitest"), [
    "run",
    "--reporter=default",
    "--reporter=json",
    `--outputFile=${out}`,
    ...excluded.flatMap((file) => ["--exclude", file]),
  ]);
  const report = readJson(out) as
    | {
        numPassedTests: number;
        numFailedTests: number;
        numPendingTests: number;
        numTodoTests: number;
        testResults?: VitestFile[];
      }
    | undefined;
  if (!report)
    return {
      name: "vitest",
      passed: 0,
      failed: 1,
      skipped: 0,
      seconds: r.seconds,
      note: "no report",
    };
  const failed = report.numFailedTests + (r.ok || report.numFailedTests > 0 ? 0 : 1);
  return {
    name: "vitest",
    passed: report.numPassedTests,
    failed,
    skipped: report.numPendingTests + report.numTodoTests,
    seconds: r.seconds,
    note:
      failed > report.numFailedTests ? "vitest exited non-zero (setup or suite error)" : undefined,
    failures: vitestFailures(report.testResults ?? []),
  };
}

function e2e(): Stage {
  const out = path.join(results, "e2e.json");
  rmSync(out, { force: true });
  const r = run(bin("playwright"), ["test"], { PLAYWRIGHT_JSON_OUTPUT_NAME: out });
  const report = readJson(out) as
    | {
        stats?: { expected: number; unexpected: number; flaky: number; skipped: number };
        suites?: PwSuite[];
      }
    | undefined;
  const s = report?.stats;
  if (!s)
    return { name: "e2e", passed: 0, failed: 1, skipped: 0, seconds: r.seconds, note: "no report" };
  const failed = s.unexpected + (r.ok || s.unexpected > 0 ? 0 : 1);
  return {
    name: "e2e",
    passed: s.expected + s.flaky,
    failed,
    skipped: s.skipped,
    seconds: r.seconds,
    note: s.flaky > 0 ? `${s.flaky} flaky (passed on retry)` : undefined,
    failures: playwrightFailures(report?.suites ?? []),
  };
}

/**
 * `next build`, marked as a build of these sources the way `npm start` marks its own: the e2e
 * stage's `npm start` (e2e/stop-on-signal.spec.ts) then serves it instead of building again.
 * Then the built dashboard (dist/dashboard) from its standalone output, which
 * scripts/cli/dashboard.test.ts runs with plain node in the vitest stage after this one.
 */
function build(): Stage {
  const hash = sourceHash(PROJECT_ROOT);
  const next = check("build", bin("next"), ["build"]);
  if (next.failed > 0) return next;
  markBuilt(PROJECT_ROOT, hash);
  const dashboard = check("build", process.execPath, [
    "--import",
    "tsx",
    path.join(PROJECT_ROOT, "scripts", "build-dashboard.ts"),
  ]);
  return { ...dashboard, seconds: next.seconds + dashboard.seconds };
}

const stages: [string, () => Stage][] = [
  ["lint", () => check("lint", bin("biome"), ["check", "."])],
  ["typecheck", () => check("typecheck", bin("tsc"), ["--noEmit"])],
  // Before vitest: the dashboard's tests run the built dashboard (a build error fails its
  // stage and those tests, the rest of vitest still runs).
  ["build", build],
  ["vitest", vitest],
  [
    "e2e",
    () => {
      if (!existsSync(path.join(PROJECT_ROOT, ".next", "BUILD_ID"))) {
        return {
          name: "e2e",
          passed: 0,
          failed: 1,
          skipped: 0,
          seconds: 0,
          note: "no build to test",
        };
      }
      return e2e();
    },
  ],
];

const done: Stage[] = [];
for (const [name, fn] of stages) {
  if (only && !only.includes(name)) continue;
  done.push(fn());
}

const total = done.reduce(
  (acc, s) => ({
    passed: acc.passed + s.passed,
    failed: acc.failed + s.failed,
    skipped: acc.skipped + s.skipped,
  }),
  { passed: 0, failed: 0, skipped: 0 },
);
console.log("\nstage       passed  failed  skipped  seconds");
for (const s of done) {
  console.log(
    `${s.name.padEnd(10)}  ${String(s.passed).padStart(6)}  ${String(s.failed).padStart(6)}  ${String(s.skipped).padStart(7)}  ${s.seconds.toFixed(1).padStart(7)}${s.note ? `  ${s.note}` : ""}`,
  );
}
const failures = done.flatMap((s) => (s.failures ?? []).map((f) => `${s.name}: ${f}`));
if (failures.length > 0) {
  console.log("\nfailed or flaky:");
  for (const f of failures) console.log(`  ${f}`);
}
if (values.summary) writeFileSync(values.summary, JSON.stringify({ stages: done, ...total }));
console.log(
  `\n${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ""}`,
);
process.exitCode = total.failed > 0 ? 1 : 0;
