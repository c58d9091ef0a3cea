// `npm start`: database (embedded unless DATABASE_URL), migrations, demo seed, the web server
// and one worker; prints the URL and stops everything on Ctrl-C. On a first start the dashboard
// build (the longest wait) runs while the database starts, migrates and seeds, and the console
// says which step it is on (the build's own output goes to .data/build.log). A child that crashes is started
// again with backoff (scripts/supervise.ts), not a reason to stop the stack. A previous run that
// was killed (kill -9) leaves processes behind; they are found through .data/run.json and stopped.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createPool } from "../db/client";
import { freePort, isAlive } from "../db/embedded";
import { migrateDatabase } from "../db/migrate";
import { type DatabaseTarget, dataDir, openDatabase, PROJECT_ROOT } from "../db/open";
import { DEMO_WEBHOOK_PORT, DEMO_WEBHOOK_URL, env } from "../lib/env";
import { logger } from "../lib/log";
import { seedDemo } from "../lib/server/commands/seed-demo";
import { DEMO_PASSWORD, DEMO_USERS, seedDemoUsers } from "../lib/server/commands/users";
import { LAUNCHER_ACTOR, pointDemoRulesAt } from "./demo-alert-rule";
import { type DemoReceiversProcess, startDemoReceiversProcess } from "./demo-receivers";
import {
  alongsideBuild,
  isBuilt,
  type RunningBuild,
  sourceHash,
  startBuild,
} from "./launch/build-if-needed";
import { DEMO_AGENTS_MODULE } from "./launch/demo-agents";
import { type RunFile, readRunFile, runFilePath, writeRunFile } from "./launch/run-file";
import { supervise } from "./supervise";

/** The session-signing secret when AUTH_SECRET is unset: generated once, kept in the data dir. */
function authSecret(): string {
  const file = path.join(dataDir(), "auth-secret");
  if (!existsSync(file)) {
    mkdirSync(dataDir(), { recursive: true });
    writeFileSync(file, randomBytes(32).toString("base64url"), { mode: 0o600 });
  }
  return readFileSync(file, "utf8").trim();
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function stopProcess(pid: number, graceMs: number): Promise<void> {
  if (!isAlive(pid)) return;
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return;
  }
  const until = Date.now() + graceMs;
  while (Date.now() < until) {
    if (!isAlive(pid)) return;
    await sleep(50);
  }
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** Refuses to start twice; cleans up after a launcher that was killed. */
async function takeOverRunFile(): Promise<void> {
  const previous = readRunFile();
  if (!previous) return;
  if (previous.launcher !== process.pid && isAlive(previous.launcher)) {
    throw new Error(
      `Agent Ledger is already running (pid ${previous.launcher}) at ${previous.url}. Stop it first (Ctrl-C in its terminal, or kill ${previous.launcher}).`,
    );
  }
  for (const [name, pid] of [
    ["web server", previous.web],
    ["worker", previous.worker],
    ["demo receivers", previous.receivers],
  ] as const) {
    if (pid && isAlive(pid)) {
      console.log(`Stopping the ${name} (pid ${pid}) left by a previous run that was killed.`);
      await stopProcess(pid, 5_000);
    }
  }
  rmSync(runFilePath(), { force: true });
}

function parentOf(pid: number): number | undefined {
  try {
    // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces, so split after ")".
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    return Number.isInteger(ppid) && ppid > 1 ? ppid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Our parent, and through any `sh -c` wrappers (npm runs scripts in one) the process that
 * launched us: npm when started as `npm start`.
 */
function launchingAncestors(): number[] {
  const chain = [process.ppid];
  let pid: number | undefined = process.ppid;
  while (pid !== undefined && chain.length < 4) {
    let cmd = "";
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\u0000")[0] ?? "";
    } catch {
      break;
    }
    if (!/(^|\/)(sh|dash|bash)$/.test(cmd)) break;
    pid = parentOf(pid);
    if (pid !== undefined) chain.push(pid);
  }
  return chain;
}

/** A web server that exits meanwhile is restarted by its supervisor: keep asking until the deadline. */
async function waitForHealth(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/api/health`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(`the web server did not become healthy within ${timeoutMs / 1000} s`);
}

type StopSignal = { promise: Promise<string>; request: (why: string) => void; reason?: string };

/** One place every reason to stop arrives: a signal, npm dying. */
function stopSignal(): StopSignal {
  const stop: StopSignal = { promise: Promise.resolve(""), request: () => {} };
  stop.promise = new Promise<string>((resolve) => {
    stop.request = (why) => {
      if (stop.reason !== undefined) return;
      stop.reason = why;
      resolve(why);
    };
  });
  return stop;
}

async function main(): Promise<number> {
  const { PORT, HOST } = env();
  const stop = stopSignal();
  // Handlers go in first, so Ctrl-C during the build or database start-up still cleans up.
  // `on`, not `once`: Ctrl-C arrives twice (from the terminal, and forwarded by npm), and a
  // second signal with no listener left would end the launcher before its children.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => stop.request(signal));
  }
  // If whoever started us dies (kill -9 of npm), stop instead of lingering as an orphan.
  const ancestors = launchingAncestors();
  const watchdog = setInterval(() => {
    if (ancestors.some((pid) => !isAlive(pid))) stop.request("the process that started it is gone");
  }, 500);
  watchdog.unref();

  mkdirSync(dataDir(), { recursive: true });
  await takeOverRunFile();
  writeRunFile({ launcher: process.pid, url: "" });
  const children: ChildProcess[] = [];
  const receivers: ChildProcess[] = [];
  const stopAll = (list: ChildProcess[]) =>
    Promise.all(list.map((c) => (c.pid ? stopProcess(c.pid, 10_000) : undefined)));
  try {
    if (stop.reason === undefined && (await freePort(PORT)) !== PORT) {
      throw new Error(`port ${PORT} is in use on ${HOST}; set PORT to another port`);
    }
    if (stop.reason !== undefined) return 0;
    // The database and the demo receivers come up while the dashboard builds: on a first start
    // that takes them off the critical path (measured in docs/benchmarks.md, "First start").
    const build = startBuildIfNeeded(stop);
    const { settled, failure } = await alongsideBuild(build, [
      prepareDatabase(stop),
      startReceivers(receivers),
    ] as const);
    const [opened, started] = settled;
    const db = opened.status === "fulfilled" ? opened.value : undefined;
    try {
      if (stop.reason !== undefined) return 0;
      if (failure !== undefined) throw failure;
      if (!db || started.status !== "fulfilled") return 1;
      return await serve(db, started.value, children, stop, PORT, HOST);
    } finally {
      // The worker may still be finishing a send: stop it before what it sends to.
      await stopAll(children);
      await stopAll(receivers);
      await db?.release();
    }
  } finally {
    clearInterval(watchdog);
    rmSync(runFilePath(), { force: true });
  }
}

/** Starts `next build` when the sources changed since the last one; Ctrl-C stops it. */
function startBuildIfNeeded(stop: StopSignal): RunningBuild | undefined {
  const hash = sourceHash(PROJECT_ROOT);
  if (isBuilt(PROJECT_ROOT, hash)) return undefined;
  const logFile = path.join(dataDir(), "build.log");
  console.log(
    `Building the dashboard: first start only, or after its sources change (25 s on 2 idle cores, minutes on a busy machine); the database starts meanwhile. Its output: ${path.relative(process.cwd(), logFile)}`,
  );
  const build = startBuild(PROJECT_ROOT, hash, { logFile, say: (line) => console.log(line) });
  void stop.promise.then(() => build.stop());
  return build;
}

/** The database up and migrated, the embedded one seeded with the demo; says each step. */
async function prepareDatabase(stop: StopSignal): Promise<DatabaseTarget> {
  const external = env().DATABASE_URL !== undefined;
  console.log(
    external
      ? "Connecting to DATABASE_URL…"
      : `Starting PostgreSQL (embedded, data in ${dataDir()})…`,
  );
  const db = await openDatabase();
  try {
    // openDatabase migrates the embedded database on its way; DATABASE_URL is migrated here.
    const migrated = db.migrated ?? (await migrateDatabase(db.ownerUrl));
    console.log(
      `Database ready and migrated (${migrated.applied > 0 ? `${migrated.applied} of ${migrated.total} migrations applied now` : `all ${migrated.total} migrations already applied`}).`,
    );
    if (db.embedded && stop.reason === undefined) {
      const pool = createPool(db.appUrl, { max: 1 });
      try {
        const { seeded } = await seedDemo(pool);
        const users = await seedDemoUsers(pool, "system:seed");
        console.log(
          seeded || users > 0
            ? `Demo seeded (tasks, approvals, dead letters and ${users} demo accounts).`
            : "Demo data already there.",
        );
      } finally {
        await pool.end();
      }
    }
    return db;
  } catch (err) {
    await db.release();
    throw err;
  }
}

/** The local mail and payments receivers, unless SMTP_URL and PAYMENTS_URL name real ones. */
async function startReceivers(
  receivers: ChildProcess[],
): Promise<DemoReceiversProcess | undefined> {
  const config = env();
  if (config.SMTP_URL && config.PAYMENTS_URL) return undefined;
  const demo = await startDemoReceiversProcess(PROJECT_ROOT);
  receivers.push(demo.child);
  // Recorded at once: a launcher killed during the build leaves them for the next start to stop.
  writeRunFile({ launcher: process.pid, receivers: demo.child.pid, url: "" });
  return demo;
}

/**
 * The demo alert rule aimed at the webhook sink where it really listens: on another port when
 * DEMO_WEBHOOK_PORT was taken, and back on it when it is free again. Returns where alerts go.
 */
async function followDemoSink(db: DatabaseTarget, demo: DemoReceiversProcess): Promise<string> {
  const alertsUrl = new URL(new URL(DEMO_WEBHOOK_URL).pathname, demo.webhooksUrl).toString();
  const pool = createPool(db.appUrl, { max: 1 });
  try {
    const moved = await pointDemoRulesAt(pool, demo.webhooksUrl);
    if (new URL(demo.webhooksUrl).port !== String(DEMO_WEBHOOK_PORT)) {
      console.log(
        `Port ${DEMO_WEBHOOK_PORT} is taken: the demo alert webhooks are received at ${alertsUrl} instead.`,
      );
    }
    for (const rule of moved) {
      console.log(
        `The demo alert rule now sends to ${rule.to} (it sent to ${rule.from}; recorded in the ledger as a change by ${LAUNCHER_ACTOR}).`,
      );
    }
  } finally {
    await pool.end();
  }
  return alertsUrl;
}

async function serve(
  db: DatabaseTarget,
  demo: DemoReceiversProcess | undefined,
  children: ChildProcess[],
  stop: StopSignal,
  port: number,
  host: string,
): Promise<number> {
  const config = env();
  const childEnv = {
    ...process.env,
    ...(demo
      ? {
          SMTP_URL: config.SMTP_URL ?? demo.smtpUrl,
          PAYMENTS_URL: config.PAYMENTS_URL ?? demo.paymentsUrl,
        }
      : {}),
    DATABASE_URL: db.appUrl,
    AUTH_SECRET: config.AUTH_SECRET ?? authSecret(),
    AGENT_LEDGER_PARENT_PID: String(process.pid),
    NEXT_TELEMETRY_DISABLED: "1",
    NODE_ENV: "production" as const,
  };
  const spawnOptions = {
    cwd: PROJECT_ROOT,
    env: childEnv,
    stdio: ["ignore", "inherit", "inherit"] as ("ignore" | "inherit")[],
  };
  const log = logger("launcher");
  const shownHost = host === "0.0.0.0" || host === "127.0.0.1" ? "localhost" : host;
  const url = `http://${shownHost}:${port}`;
  // Where the worker sends (a receiver configured by SMTP_URL / PAYMENTS_URL over the demo's),
  // so `agent-ledger demo` stages its outage where the worker will meet it.
  const run: RunFile = {
    launcher: process.pid,
    receivers: demo?.child.pid,
    url,
    ...(demo
      ? {
          demo: {
            smtpUrl: childEnv.SMTP_URL ?? demo.smtpUrl,
            paymentsUrl: childEnv.PAYMENTS_URL ?? demo.paymentsUrl,
            webhooksUrl: demo.webhooksUrl,
          },
        }
      : {}),
  };
  // run.json always holds the live children's pids, so a killed launcher's orphans are found.
  const track = (key: "web" | "worker") => ({
    onStart: (child: ChildProcess) => {
      children.push(child);
      run[key] = child.pid;
      writeRunFile(run);
    },
    onExit: (child: ChildProcess) => {
      // A dead child's pid may be reused by an unrelated process: never signal it later.
      const at = children.indexOf(child);
      if (at >= 0) children.splice(at, 1);
      if (run[key] === child.pid) run[key] = undefined;
      writeRunFile(run);
    },
  });
  const stopping = () => stop.reason !== undefined;
  // Before the worker starts: no alert goes to a sink that is not there.
  const alertsUrl = demo ? await followDemoSink(db, demo) : undefined;
  console.log(`Starting the web server (${url}) and a worker…`);
  const supervised = [
    supervise({
      name: "web server",
      spawnChild: () =>
        // The web gate in front of Next (web/server.ts): body caps, timeouts, the client address.
        spawn(process.execPath, ["--import", "tsx", path.join(PROJECT_ROOT, "web", "server.ts")], {
          ...spawnOptions,
          env: { ...spawnOptions.env, PORT: String(port), HOST: host },
        }),
      stopping,
      log,
      ...track("web"),
    }),
    supervise({
      name: "worker",
      spawnChild: () =>
        spawn(
          process.execPath,
          [
            "--import",
            "tsx",
            path.join(PROJECT_ROOT, "worker", "main.ts"),
            "--agents",
            DEMO_AGENTS_MODULE,
          ],
          spawnOptions,
        ),
      stopping,
      log,
      ...track("worker"),
    }),
  ];
  void stop.promise.then(() => {
    for (const s of supervised) s.release();
  });

  const healthy = waitForHealth(
    `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}`,
    60_000,
  ).then(() => "healthy");
  // Observed by the race below; a failure that lands after we already stopped is moot.
  healthy.catch(() => undefined);
  if ((await Promise.race([healthy, stop.promise])) === "healthy") {
    console.log(`
  Agent Ledger is running at ${url}
  Database: ${db.embedded ? `embedded PostgreSQL in ${dataDir()}` : "DATABASE_URL"}${demo ? `\n  Demo receivers: mail ${demo.smtpUrl}, payments ${demo.paymentsUrl}, alert webhooks ${alertsUrl} (what it received: GET ${new URL("/requests", demo.webhooksUrl)})` : ""}${
    db.embedded
      ? `\n  Demo accounts (password ${DEMO_PASSWORD}): ${DEMO_USERS.map((u) => `${u.email} (${u.role})`).join(", ")}`
      : ""
  }
  Press Ctrl-C to stop.
`);
  }
  const why = await stop.promise;
  console.log(`\nStopping (${why})…`);
  return 0;
}

// A closed terminal or pipe (`npm start | tee log`, then Ctrl-C) must not stop the shutdown
// halfway: writes to a dead stdout are dropped instead of throwing.
for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});

try {
  process.exitCode = await main();
} catch (err) {
  console.error(`npm start: ${(err as Error).message}`);
  process.exitCode = 1;
}
