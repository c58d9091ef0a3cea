// `npm start` builds the dashboard only when its inputs changed since the last build: a
// content hash of the sources is kept beside the build output. The build's own output (the
// route table, warnings) goes to a log file; the console gets one line per phase, so a new user
// sees what the first minute is spent on instead of a framework's report.
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";

/**
 * Everything the Next build reads from this repository. scripts/build-if-needed.test.ts follows
 * the relative imports from these files and fails on one that leads outside the list, so a file
 * the dashboard starts to import cannot be edited without a rebuild.
 */
export const INPUTS = [
  "app",
  "components",
  "lib",
  "db/schema",
  "db/migrations",
  "db/client.ts",
  "db/retry.ts",
  "web/headers.ts",
  "public",
  "next.config.ts",
  "instrumentation-client.ts",
  "postcss.config.mjs",
  "tsconfig.json",
  "package.json",
  "package-lock.json",
];

/**
 * Set by `npm start` for its build: next.config.ts then skips the build's type-check (`npm test`
 * and CI run tsc anyway) and Turbopack's build cache (it costs a first start more than it saves
 * a rebuild). Every other `next build` (npm test's build stage, CI's e2e build) is unchanged.
 */
export const START_BUILD_ENV = "AGENT_LEDGER_START_BUILD";

const isTest = (rel: string) => /\.test\.tsx?$/.test(rel);

function collect(root: string, rel: string, out: string[]): void {
  const full = path.join(root, rel);
  if (!existsSync(full)) return;
  if (statSync(full).isDirectory()) {
    for (const name of readdirSync(full).sort()) {
      if (name === "node_modules" || name.startsWith(".")) continue;
      collect(root, path.join(rel, name), out);
    }
  } else if (!isTest(rel)) {
    out.push(rel);
  }
}

/** The files INPUTS covers, relative to root, in a stable order. */
export function inputFiles(root: string, inputs: readonly string[] = INPUTS): string[] {
  const files: string[] = [];
  for (const input of inputs) collect(root, input, files);
  return files;
}

export function sourceHash(root: string): string {
  const hash = createHash("sha256");
  for (const file of inputFiles(root)) {
    hash.update(file);
    hash.update("\0");
    hash.update(readFileSync(path.join(root, file)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

const markerFile = (root: string) => path.join(root, ".next", "agent-ledger-source-hash");

/**
 * Records that .next holds a finished build of the sources whose hash is `hash` (taken before
 * the build began, so an edit made meanwhile reads as a change). `npm start` marks its own
 * builds; npm test's build stage marks its, so `npm start` in the e2e stage serves that one.
 */
export function markBuilt(root: string, hash: string): void {
  writeFileSync(markerFile(root), `${hash}\n`);
}

/** Whether .next holds a finished build of exactly these sources. */
export function isBuilt(root: string, hash: string): boolean {
  return (
    existsSync(path.join(root, ".next", "BUILD_ID")) &&
    existsSync(markerFile(root)) &&
    readFileSync(markerFile(root), "utf8").trim() === hash
  );
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes start with ESC.
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

/** What a line of `next build` output says the build is now doing; undefined for other lines. */
export function buildPhase(line: string): string | undefined {
  const text = line.replace(ANSI, "").trim();
  const compiled = /Compiled successfully in (\S+)/.exec(text);
  if (compiled) return `compiled in ${compiled[1]}`;
  if (text.includes("Creating an optimized production build")) return "compiling";
  if (text.includes("Running TypeScript")) return "checking types";
  if (text.includes("Skipping validation of types")) return "type-check skipped (tsc runs in CI)";
  if (text.includes("Collecting page data")) return "collecting page data";
  if (text.includes("Generating static pages")) return "prerendering pages";
  if (text.includes("Finalizing page optimization")) return "finalizing";
  return undefined;
}

/** The console line for a phase `seconds` into the build. */
export const progressLine = (phase: string, seconds: number, still = false) =>
  `  dashboard: ${still ? "still " : ""}${phase} (${Math.round(seconds)} s)`;

export type RunningBuild = {
  /** Settles when the build finished and its hash is recorded; rejects with the log's tail. */
  done: Promise<void>;
  /** Stops the build (Ctrl-C while it runs); `done` then rejects. */
  stop: () => void;
};

function tail(file: string, lines: number): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no build log)";
  }
}

/**
 * Runs `next build` in the background with its output in `logFile`, telling `say` each phase
 * and, when a phase runs long, that it still runs (every `heartbeatMs`).
 */
export function startBuild(
  root: string,
  hash: string,
  opts: { logFile: string; say: (line: string) => void; heartbeatMs?: number },
): RunningBuild {
  mkdirSync(path.dirname(opts.logFile), { recursive: true });
  const log = createWriteStream(opts.logFile);
  const started = Date.now();
  const seconds = () => (Date.now() - started) / 1000;
  let phase = "starting";
  let stopped = false;
  const child: ChildProcess = spawn(path.join(root, "node_modules", ".bin", "next"), ["build"], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", [START_BUILD_ENV]: "1" },
  });
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    stream.pipe(log, { end: false });
    createInterface({ input: stream }).on("line", (line) => {
      const next = buildPhase(line);
      if (next === undefined) return;
      phase = next;
      opts.say(progressLine(phase, seconds()));
    });
  }
  const heartbeat = setInterval(
    () => opts.say(progressLine(phase, seconds(), true)),
    opts.heartbeatMs ?? 15_000,
  );
  heartbeat.unref();

  const done = new Promise<void>((resolve, reject) => {
    child.once("error", (err) => {
      clearInterval(heartbeat);
      log.end();
      reject(new Error(`could not run next build: ${err.message}`));
    });
    child.once("close", (code, signal) => {
      clearInterval(heartbeat);
      log.end(() => {
        if (stopped) return reject(new Error("the build was stopped"));
        if (code !== 0) {
          return reject(
            new Error(
              `next build failed (${signal ?? `exit ${code}`}); the end of ${opts.logFile}:\n${tail(opts.logFile, 40)}`,
            ),
          );
        }
        markBuilt(root, hash);
        opts.say(`Dashboard built in ${Math.round(seconds())} s.`);
        resolve();
      });
    });
  });
  return {
    done,
    stop: () => {
      if (stopped || child.exitCode !== null || child.signalCode !== null) return;
      stopped = true;
      child.kill("SIGTERM");
    },
  };
}

export type AlongsideBuild<T extends readonly unknown[]> = {
  /** Each step's outcome, so what did start (a database) can be released after a failure. */
  settled: { -readonly [K in keyof T]: PromiseSettledResult<T[K]> };
  /** Why the start cannot go on: the first failed step, else the build's failure. */
  failure?: unknown;
};

/**
 * Waits for the build and for `steps` running meanwhile (the database, the demo receivers). A
 * step that fails stops the build at once, so a broken database does not wait a minute for a
 * build nobody will serve; its error, not the build's "stopped", is the one reported.
 */
export async function alongsideBuild<T extends readonly unknown[]>(
  build: RunningBuild | undefined,
  steps: { readonly [K in keyof T]: Promise<T[K]> },
): Promise<AlongsideBuild<T>> {
  for (const step of steps) step.catch(() => build?.stop());
  const [built, ...settled] = await Promise.allSettled([build?.done, ...steps]);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  const failure = failed ? failed.reason : built?.status === "rejected" ? built.reason : undefined;
  return {
    settled: settled as AlongsideBuild<T>["settled"],
    ...(failure === undefined ? {} : { failure }),
  };
}
