// `npm run web` and `npm start` stopped the way a process manager stops them: SIGTERM to the pid
// it started, which is npm's. npm passes the signal to its child only, so the child must be our
// process itself (the scripts exec node); it stops with everything it started, npm exits after
// it, the ports are free and no process of theirs is left. Here because both need the dashboard
// build (npm test's build stage marks it as npm start's own, so npm start serves it and does not
// build again); `npm run worker` is checked in scripts/stop-on-signal.test.ts.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { isBuilt, sourceHash } from "../scripts/launch/build-if-needed";
import { readRunFile } from "../scripts/launch/run-file";
import { expect, test } from "./fixtures";
import { descendants, type Proc, stillRunning } from "./process-tree";
import { ROOT, readE2eDatabase } from "./settings";

const started: ChildProcess[] = [];
const seen: Proc[] = [];
test.afterEach(() => {
  for (const child of started.splice(0)) {
    if (child.pid) seen.push(...descendants(child.pid));
    child.kill("SIGKILL");
  }
  for (const proc of seen.splice(0).filter(stillRunning)) process.kill(proc.pid, "SIGKILL");
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

/** Whether something accepts connections on the port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * `npm run <script>` with its output kept, resolving once /api/health on `port` says 200 and
 * the output holds `ready`.
 */
async function npmRun(script: string, port: number, env: Record<string, string>, ready = "") {
  const npm = spawn("npm", ["run", "--silent", script], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.push(npm);
  let output = "";
  npm.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  npm.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(npm, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  await expect
    .poll(
      async () => {
        if (npm.exitCode !== null) throw new Error(`npm run ${script} exited:\n${output}`);
        const status = await fetch(`http://127.0.0.1:${port}/api/health`).then(
          (r) => r.status,
          () => 0,
        );
        return output.includes(ready) ? status : 0;
      },
      { timeout: 150_000, intervals: [500] },
    )
    .toBe(200);
  return { npm, exited, output: () => output };
}

/** SIGTERM to npm's pid; npm must exit within `graceMs`, and the tree recorded before with it. */
async function stopAsSupervisor(
  run: Awaited<ReturnType<typeof npmRun>>,
  port: number,
  graceMs: number,
) {
  const pid = run.npm.pid ?? 0;
  const tree = descendants(pid);
  seen.push(...tree);
  const signalled = Date.now();
  run.npm.kill("SIGTERM");
  const [code] = await Promise.race([
    run.exited,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`npm still running ${graceMs} ms after SIGTERM`)), graceMs),
    ),
  ]);
  return { tree, code, tookMs: Date.now() - signalled, portInUse: await listening(port) };
}

test("npm run web stops, with everything it started, on SIGTERM to npm's pid", async () => {
  test.setTimeout(180_000);
  const database = readE2eDatabase();
  const port = await freePort();
  const run = await npmRun("web", port, {
    DATABASE_URL: database.appUrl,
    ...(database.readerUrl ? { DATABASE_READ_URL: database.readerUrl } : {}),
    AUTH_SECRET: "e2e-only-secret-e2e-only-secret-e2e-only",
    // The specs read a still database (e2e/server.ts): no alert deliveries from this one either.
    ALERTS_IN_WEB: "false",
    NEXT_TELEMETRY_DISABLED: "1",
  });
  const pid = run.npm.pid ?? 0;
  // npm's child is the web server itself: no shell between them to swallow the signal.
  expect(
    descendants(pid)
      .filter((p) => p.ppid === pid)
      .map((p) => p.command),
  ).toEqual([expect.stringMatching(/^\S*node --import tsx \S*web\/server\.ts$/)]);
  const stopped = await stopAsSupervisor(run, port, 10_000);
  console.log(`npm run web: npm exited (code ${stopped.code}) ${stopped.tookMs} ms after SIGTERM`);
  expect(stopped.tree.filter(stillRunning).map((p) => `${p.pid} ${p.command}`)).toEqual([]);
  expect(stopped.portInUse).toBe(false);
  expect(run.output()).toContain('"why":"SIGTERM"');
  expect(stopped.code).toBe(0);
});

const childrenOf = (pid: number) =>
  descendants(pid)
    .filter((p) => p.ppid === pid)
    .map((p) => p.command);

test("npm start stops the web server, the worker, the demo receivers and its database on SIGTERM to npm's pid", async () => {
  test.setTimeout(120_000);
  // Without the mark npm start would build into .next under the running e2e server. npm test's
  // build stage writes it; a bare `next build` does not (then run `npm start` once, or
  // `node --import tsx scripts/test.ts --only build,e2e`). CI always goes through npm test.
  const built = isBuilt(ROOT, sourceHash(ROOT));
  test.skip(
    !built && !process.env.CI,
    "the build is not marked as one of these sources (npm test's build stage or npm start marks it)",
  );
  expect(
    built,
    ".next is not marked as a build of these sources, so npm start would build again: build through npm test's build stage",
  ).toBe(true);

  // Its own data dir: a fresh embedded database and run file, removed afterwards.
  const dataDir = mkdtempSync(path.join(tmpdir(), "agent-ledger-stop-"));
  try {
    const port = await freePort();
    const run = await npmRun(
      "start",
      port,
      {
        // The zero-setup default a new user gets: embedded database, demo receivers.
        AGENT_LEDGER_DATA_DIR: dataDir,
        DATABASE_URL: "",
        DATABASE_READ_URL: "",
        SMTP_URL: "",
        PAYMENTS_URL: "",
        AUTH_BASE_URL: "",
        NEXT_TELEMETRY_DISABLED: "1",
      },
      "Press Ctrl-C to stop.",
    );
    const pid = run.npm.pid ?? 0;
    expect(run.output()).not.toContain("Building the dashboard");
    expect(childrenOf(pid)).toEqual([
      expect.stringMatching(/^\S*node --import tsx \S*scripts\/start\.ts$/),
    ]);
    const commands = descendants(pid)
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
    // Where the receivers listen, as the run file tells the `demo` commands.
    const recorded = readRunFile(path.join(dataDir, "run.json"));
    expect(recorded?.url).toBe(`http://localhost:${port}`);
    const receiverPorts = [
      recorded?.demo?.smtpUrl,
      recorded?.demo?.paymentsUrl,
      recorded?.demo?.webhooksUrl,
    ].map((url) => Number(new URL(url ?? "http://invalid").port));
    for (const p of receiverPorts) expect(await listening(p), `a receiver on ${p}`).toBe(true);
    const postmaster = path.join(dataDir, "pg", "postmaster.pid");
    expect(existsSync(postmaster)).toBe(true);

    const stopped = await stopAsSupervisor(run, port, 30_000);
    console.log(`npm start: npm exited (code ${stopped.code}) ${stopped.tookMs} ms after SIGTERM`);
    expect(stopped.tree.filter(stillRunning).map((p) => `${p.pid} ${p.command}`)).toEqual([]);
    expect(stopped.portInUse).toBe(false);
    for (const p of receiverPorts) expect(await listening(p), `a receiver on ${p}`).toBe(false);
    expect(existsSync(path.join(dataDir, "run.json"))).toBe(false);
    expect(existsSync(postmaster)).toBe(false);
    expect(stopped.code).toBe(0);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
