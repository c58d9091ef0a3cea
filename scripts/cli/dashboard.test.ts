// The built dashboard as a team runs it: dist/dashboard copied out of this checkout and started
// with plain node (no tsx, no sources, no node_modules above it) against a test database, and
// `agent-ledger dashboard` starting it and refusing what it cannot run on. The build comes from
// npm test's build stage (`npm run build`), which runs before vitest; without one the built
// cases are skipped here and fail on CI.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { freePort } from "../../db/embedded";
import { setUpTestDatabase } from "../../db/testing/database";
import { env } from "../../lib/env";
import { builtDashboard, dashboardCommand } from "./dashboard";
import { BIN, cliOn } from "./testing";

const t = await setUpTestDatabase("dashboard");
const cli = cliOn(t);
const AUTH_SECRET = "dashboard-test-secret-dashboard-test-secret";
const server = builtDashboard();
const ci = Boolean(env().CI);

/**
 * dist/dashboard as the npm package ships it: packed by `npm pack` (whose rules leave symlinks
 * out, among others) with a package.json whose "files" is ["dist"], and unpacked into `dir`,
 * outside this checkout, where nothing resolves into its sources or its node_modules.
 */
function packedCopy(dashboard: string, dir: string): string {
  const pkg = path.join(dir, "pkg");
  mkdirSync(path.join(pkg, "dist"), { recursive: true });
  cpSync(dashboard, path.join(pkg, "dist", "dashboard"), {
    recursive: true,
    verbatimSymlinks: true,
  });
  writeFileSync(
    path.join(pkg, "package.json"),
    JSON.stringify({ name: "dashboard-pack-check", version: "0.0.0", files: ["dist"] }),
  );
  const packed = spawnSync("npm", ["pack", "--silent", "--pack-destination", dir], {
    cwd: pkg,
    encoding: "utf8",
  });
  if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
  const tarball = path.join(dir, packed.stdout.trim().split("\n").at(-1) ?? "");
  const out = path.join(dir, "unpacked");
  mkdirSync(out);
  const unpacked = spawnSync("tar", ["-xzf", tarball, "-C", out], { encoding: "utf8" });
  if (unpacked.status !== 0) throw new Error(`tar failed: ${unpacked.stderr}`);
  return path.join(out, "package", "dist", "dashboard");
}

/** Waits for GET url to answer 200, or for the process to end; its output on a failure. */
async function healthy(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the dashboard exited (${child.exitCode ?? child.signalCode}):\n${output()}`);
    }
    const status = await fetch(url).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} did not answer 200 within 60 s:\n${output()}`);
}

/** Starts `args` with plain node; stopped by its own pid after the file. */
function start(args: string[], opts: { cwd: string; env: Record<string, string> }) {
  const child = spawn(process.execPath, args, {
    cwd: opts.cwd,
    // Only what a team would set: nothing of this test process (its NODE_ENV=test included).
    env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  return { child, output: () => output };
}

/** SIGTERM to the process's own pid; its exit code, or the signal that ended it. */
function stop(child: ChildProcess): Promise<number | string | null> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve(child.exitCode ?? child.signalCode);
  }
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", (code, signal) => {
      clearTimeout(force);
      resolve(code ?? signal);
    });
    child.kill("SIGTERM");
  });
}

const appEnv = (port: number) => ({
  DATABASE_URL: t.appUrl,
  AUTH_SECRET,
  AUTH_BASE_URL: `http://127.0.0.1:${port}`,
  PORT: String(port),
  HOST: "127.0.0.1",
  // Nothing here receives alerts; the seeded database has no rules anyway.
  ALERTS_IN_WEB: "false",
  NEXT_TELEMETRY_DISABLED: "1",
  LOG_LEVEL: "warn",
});

describe("agent-ledger dashboard refuses what it cannot run on", () => {
  it("exits 2 naming DATABASE_URL when it is unset", () => {
    const r = cli(["dashboard"], { env: { DATABASE_URL: "", AUTH_SECRET } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("DATABASE_URL is not set");
  });

  it("exits 2 naming AUTH_SECRET when it is unset", () => {
    const r = cli(["dashboard"], { env: { AUTH_SECRET: "" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("AUTH_SECRET is not set");
  });

  it.skipIf(!server)("exits 2 when the database cannot be reached, without its password", () => {
    const r = cli(["dashboard"], {
      env: { DATABASE_URL: "postgres://x:hunter2@127.0.0.1:1/none", AUTH_SECRET },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("cannot reach DATABASE_URL postgres://x:***@127.0.0.1:1/none");
    expect(r.stderr).not.toContain("hunter2");
  });

  it("says which variables matter in its help, and how the first admin gets in", () => {
    for (const name of ["DATABASE_URL", "AUTH_SECRET", "AUTH_BASE_URL", "DATABASE_OWNER_URL"]) {
      expect(dashboardCommand.usage).toContain(name);
    }
    expect(dashboardCommand.usage).toContain("users add --email you@example.com --role admin");
  });
});

describe("the built dashboard", () => {
  it("exists on CI, where npm test's build stage ran before this", () => {
    if (!server && !ci) {
      console.warn(
        "dashboard.test: no built dashboard (dist/dashboard/server.js): run `npm run build`; the built cases are skipped",
      );
      return;
    }
    expect(server, "no dist/dashboard/server.js: the build stage did not build it").toBeDefined();
  });

  it.skipIf(!server)(
    "serves /api/health and the sign-in page as npm packs it, with plain node",
    async () => {
      const dir = mkdtempSync(path.join(tmpdir(), "agent-ledger-dashboard-"));
      const dashboard = packedCopy(path.dirname(server as string), dir);
      const port = await freePort();
      const run = start([path.join(dashboard, "server.js")], { cwd: tmpdir(), env: appEnv(port) });
      try {
        await healthy(`http://127.0.0.1:${port}/api/health`, run.child, run.output);
        const signIn = await fetch(`http://127.0.0.1:${port}/sign-in`);
        expect(signIn.status).toBe(200);
        expect(await signIn.text()).toContain("Sign in");
        // The gate in front of Next answers too: an unknown method is refused before Next.
        const refused = await fetch(`http://127.0.0.1:${port}/`, { method: "PROPFIND" });
        expect(refused.status).toBe(405);
      } finally {
        const stopped = await stop(run.child);
        rmSync(dir, { recursive: true, force: true });
        expect(stopped).toBe(0);
      }
    },
  );

  it.skipIf(!server)(
    "runs under agent-ledger dashboard --migrate and stops with it on SIGTERM",
    async () => {
      const port = await freePort();
      const run = start([BIN, "dashboard", "--migrate", "--port", String(port)], {
        cwd: tmpdir(),
        env: { ...appEnv(port), PORT: "1", DATABASE_OWNER_URL: t.ownerUrl },
      });
      try {
        await healthy(`http://127.0.0.1:${port}/api/health`, run.child, run.output);
        expect(run.output()).toContain("Applied 0 migration(s)");
      } finally {
        expect(await stop(run.child)).toBe(0);
      }
    },
  );
});
