// `npm run worker` and `npm start` stopped the way a process manager stops them: SIGTERM (or
// SIGINT) to the pid it started, which is npm's. npm passes the signal to its child only, so the
// child must be our process itself (the scripts exec node), not a shell that dies and leaves it
// behind. It must stop cleanly with everything it started, npm exit after it, and nothing be
// left running. (`npm run web` needs the dashboard build: e2e/stop-on-signal.spec.ts.)
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../db/open";
import { setUpTestDatabase } from "../db/testing/database";
import { descendants, type Proc, stillRunning } from "../e2e/process-tree";
import { isBuilt, sourceHash } from "./build-if-needed";

const db = await setUpTestDatabase("stop_on_signal");

const started: ChildProcess[] = [];
/** Every process a test saw under npm: a failed test's orphans are no longer below it. */
const seen: Proc[] = [];
afterEach(() => {
  for (const child of started.splice(0)) {
    if (child.pid) seen.push(...descendants(child.pid));
    child.kill("SIGKILL");
  }
  for (const proc of seen.splice(0).filter(stillRunning)) process.kill(proc.pid, "SIGKILL");
});

type Run = {
  npm: ChildProcess;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
  output: () => string;
};

/** `npm run <script>`, resolving once its output contains `ready` (or failing if npm exits). */
async function npmRun(script: string, env: Record<string, string>, ready: string): Promise<Run> {
  const npm = spawn("npm", ["run", "--silent", script], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.push(npm);
  let output = "";
  const exited = once(npm, "exit") as Run["exited"];
  await Promise.race([
    new Promise<void>((resolve) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes(ready)) resolve();
      };
      npm.stdout?.on("data", onData);
      npm.stderr?.on("data", onData);
    }),
    exited.then(() => {
      throw new Error(`npm run ${script} exited before it was ready:\n${output}`);
    }),
  ]);
  return { npm, exited, output: () => output };
}

/** The signal to npm's pid; npm must exit within `graceMs`. Returns the tree recorded before. */
async function stopAsSupervisor(run: Run, signal: NodeJS.Signals, graceMs: number) {
  const tree = descendants(run.npm.pid ?? 0);
  seen.push(...tree);
  const signalled = Date.now();
  run.npm.kill(signal);
  const [code, by] = await Promise.race([
    run.exited,
    new Promise<never>((_, reject) =>
      setTimeout(
        () => reject(new Error(`npm still running ${graceMs} ms after ${signal}`)),
        graceMs,
      ),
    ),
  ]);
  console.log(
    `${signal}: npm exited (code ${code}, signal ${by}) after ${Date.now() - signalled} ms`,
  );
  return { tree, code };
}

const childrenOf = (pid: number | undefined) =>
  descendants(pid ?? 0)
    .filter((p) => p.ppid === pid)
    .map((p) => p.command);

describe.each(["SIGTERM", "SIGINT"] as const)("npm run worker and %s to npm's pid", (signal) => {
  it("stops the worker, then npm, within the grace period, leaving no process behind", async () => {
    const run = await npmRun(
      "worker",
      { DATABASE_URL: db.appUrl, LOG_LEVEL: "info" },
      '"msg":"ready',
    );
    // npm's child is node running the worker: no shell between them to swallow the signal.
    expect(childrenOf(run.npm.pid)).toEqual([
      expect.stringMatching(/^\S*node --import tsx \S*worker\/main\.ts$/),
    ]);
    // The worker's own stop waits up to 10 s for in-flight work; an idle one takes well under.
    const { tree, code } = await stopAsSupervisor(run, signal, 15_000);
    expect(tree.filter(stillRunning).map((p) => `${p.pid} ${p.command}`)).toEqual([]);
    expect(run.output()).toContain(`"why":"${signal}"`);
    expect(run.output()).toContain("stopping; finishing in-flight work");
    expect(code).toBe(0);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

// The launcher builds the dashboard first unless .next holds a build it made of these very
// sources: minutes on a CI box (where vitest runs before the build). So this runs where
// `npm start` has built (a developer's checkout after one `npm start`) and is skipped elsewhere.
describe.skipIf(!isBuilt(PROJECT_ROOT, sourceHash(PROJECT_ROOT)))("npm start", () => {
  it("stops the web server, the worker, the demo receivers and its database on SIGTERM to npm's pid", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "agent-ledger-stop-"));
    try {
      const port = await freePort();
      const run = await npmRun(
        "start",
        {
          // The zero-setup default a new user gets: embedded database, demo receivers.
          AGENT_LEDGER_DATA_DIR: dataDir,
          DATABASE_URL: "",
          SMTP_URL: "",
          PAYMENTS_URL: "",
          PORT: String(port),
          HOST: "127.0.0.1",
          NEXT_TELEMETRY_DISABLED: "1",
        },
        "Press Ctrl-C to stop.",
      );
      expect(childrenOf(run.npm.pid)).toEqual([
        expect.stringMatching(/^\S*node --import tsx \S*scripts\/start\.ts$/),
      ]);
      const commands = descendants(run.npm.pid ?? 0)
        .map((p) => p.command)
        .join("\n");
      // What a stop must take down: the launcher's children and the embedded database.
      for (const part of [
        /web\/server\.ts/,
        /worker\/main\.ts/,
        /worker\/demo\/main\.ts/,
        /postgres/,
      ]) {
        expect(commands).toMatch(part);
      }
      const { tree, code } = await stopAsSupervisor(run, "SIGTERM", 30_000);
      expect(tree.filter(stillRunning).map((p) => `${p.pid} ${p.command}`)).toEqual([]);
      const portFree = await new Promise<boolean>((resolve) => {
        const socket = net.connect(port, "127.0.0.1");
        socket.once("connect", () => {
          socket.destroy();
          resolve(false);
        });
        socket.once("error", () => resolve(true));
      });
      expect(portFree).toBe(true);
      expect(existsSync(path.join(dataDir, "run.json"))).toBe(false);
      expect(code).toBe(0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 240_000);
});
