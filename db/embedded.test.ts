// The embedded database survives what users do to it: a parent killed with SIGKILL leaves an
// orphaned postmaster, a stale postmaster.pid, two processes sharing one cluster.
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { connectClient } from "./client";
import {
  ensureEmbeddedDatabase,
  initCluster,
  isAlive,
  newClusterState,
  readPostmasterPid,
  startPostmaster,
} from "./embedded";

const dir = mkdtempSync(path.join(tmpdir(), "agent-ledger-embedded-"));
chmodSync(dir, 0o755);
const pgData = path.join(dir, "pg");
afterAll(() => {
  const running = readPostmasterPid(pgData);
  if (running && isAlive(running.pid)) process.kill(running.pid, "SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

async function canQuery(url: string): Promise<boolean> {
  const client = await connectClient(url);
  try {
    const { rows } = await client.query("select current_user as u");
    return typeof rows[0]?.u === "string";
  } finally {
    await client.end();
  }
}

/** Starts the cluster from a child process, which is then killed with SIGKILL. */
async function startAndKill(): Promise<number> {
  const embedded = path.join(import.meta.dirname, "embedded.ts");
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "-e",
      `const m = await import(${JSON.stringify(embedded)}); await m.ensureEmbeddedDatabase(${JSON.stringify(dir)}); console.log("ready"); setInterval(() => {}, 1000);`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      if (d.toString().includes("ready")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`child exited ${code}`)));
  });
  child.kill("SIGKILL");
  await new Promise((r) => child.once("exit", r));
  const running = readPostmasterPid(pgData);
  if (!running) throw new Error("no postmaster.pid after start");
  return running.pid;
}

describe("embedded database", () => {
  it("stops an orphaned postmaster left by a killed parent and starts again", async () => {
    const orphan = await startAndKill();
    expect(isAlive(orphan)).toBe(true);

    const handle = await ensureEmbeddedDatabase(dir);
    expect(isAlive(orphan)).toBe(false);
    expect(await canQuery(handle.appUrl)).toBe(true);
    const running = readPostmasterPid(pgData);
    await handle.release();
    expect(running && isAlive(running.pid)).toBe(false);
  });

  it("clears a stale postmaster.pid whose process is gone", async () => {
    writeFileSync(path.join(pgData, "postmaster.pid"), "999999\n/x\n0\n5432\n");
    const handle = await ensureEmbeddedDatabase(dir);
    expect(await canQuery(handle.ownerUrl)).toBe(true);
    await handle.release();
  });

  it("is shared by several processes and stopped by the last one out", async () => {
    const first = await ensureEmbeddedDatabase(dir);
    // A second user in another process: simulate its registration with a live pid (ours is
    // excluded), here the test runner's parent.
    const users = path.join(dir, "users");
    writeFileSync(path.join(users, String(process.ppid)), "");
    const second = await ensureEmbeddedDatabase(dir);
    expect(second.port).toBe(first.port);
    await first.release();
    const running = readPostmasterPid(pgData);
    expect(running && isAlive(running.pid)).toBe(true);
    rmSync(path.join(users, String(process.ppid)));
    await second.release();
    expect(running && isAlive(running.pid)).toBe(false);
  });

  it("shows the server log tail when PostgreSQL cannot start", async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
    const address = blocker.address();
    const port = typeof address === "object" && address ? address.port : 0;
    const other = path.join(dir, "other");
    const state = newClusterState(port);
    await initCluster(other, state.superPassword);
    try {
      await expect(
        startPostmaster({
          pgData: other,
          port,
          logFile: path.join(dir, "other.log"),
          superPassword: state.superPassword,
        }),
      ).rejects.toThrow(
        /exited with code \d+ while starting[\s\S]*(could not bind|Address already in use)/,
      );
    } finally {
      blocker.close();
    }
  });
});
