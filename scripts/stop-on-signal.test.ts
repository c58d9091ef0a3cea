// `npm run worker` stopped the way a process manager stops it: SIGTERM (or SIGINT) to the pid it
// started, which is npm's. npm passes the signal to its child only, so the child must be our
// process itself (the script execs node), not a shell that dies and leaves it behind. It must
// stop cleanly, npm exit after it, and nothing be left running. (`npm run web` and `npm start`
// need the dashboard build: e2e/stop-on-signal.spec.ts, after npm test's build stage.)
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../db/open";
import { setUpTestDatabase } from "../db/testing/database";
import { descendants, type Proc, stillRunning } from "../e2e/process-tree";

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
      expect.stringMatching(/^\S*node --import tsx \S*worker\/main\.ts --agents \S+$/),
    ]);
    // The worker's own stop waits up to 10 s for in-flight work; an idle one takes well under.
    const { tree, code } = await stopAsSupervisor(run, signal, 15_000);
    expect(tree.filter(stillRunning).map((p) => `${p.pid} ${p.command}`)).toEqual([]);
    expect(run.output()).toContain(`"why":"${signal}"`);
    expect(run.output()).toContain("stopping; finishing in-flight work");
    expect(code).toBe(0);
  });
});
