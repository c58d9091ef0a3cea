// The crash harness as `npm run chaos` runs it: a real process that starts workers, kills them,
// and judges the run. A small run must come out clean, and the harness must leave nothing
// behind, whether it finishes, is interrupted or is itself killed with SIGKILL.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { connectClient } from "../db/client";
import { childEnv } from "../lib/env";
import { FAULT_POINTS } from "../lib/server/fault-points";
import { RUN_MARKER } from "./chaos/processes";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const superUrl = inject("testCluster").superUrl;

const resultSchema = z.object({
  tasks: z.number(),
  succeeded: z.number(),
  dead: z.record(z.string(), z.number()),
  held: z.number(),
  kills: z.object({
    harness: z.number(),
    faultPoints: z.object(Object.fromEntries(FAULT_POINTS.map((p) => [p, z.number()]))),
  }),
  deliveries: z.object({
    smtp: z.object({ intents: z.number(), max: z.number() }),
    payments: z.object({ intents: z.number(), refundsCreated: z.number(), max: z.number() }),
    missing: z.number(),
  }),
  duplicates: z.number(),
  lost: z.number(),
  chain: z.object({ ok: z.boolean(), entries: z.number() }),
  seconds: z.number(),
});

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
});

function harness(args: string[]) {
  // The vitest cluster's server: the harness makes its own template and database on it.
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/chaos.ts", ...args], {
    cwd: ROOT,
    env: childEnv({ TEST_DATABASE_URL: superUrl }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = once(child, "exit").then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
    stdout,
    stderr,
  }));
  const stderrSays = async (text: string, timeoutMs = 60_000) => {
    const until = Date.now() + timeoutMs;
    while (!stderr.includes(text)) {
      if (Date.now() > until || child.exitCode !== null) {
        throw new Error(`the harness never said "${text}":\n${stderr}`);
      }
      await sleep(50);
    }
  };
  return { child, exited, stderrSays };
}

/** Processes the harness started (they carry its pid in RUN_MARKER) that are still running. */
function leftBehind(harnessPid: number): number[] {
  const marker = `${RUN_MARKER}=${harnessPid}`;
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "utf8").split("\0").includes(marker)) {
        found.push(Number(entry));
      }
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/** Databases the harness made on the shared server (its template and its run database). */
async function databasesOf(harnessPid: number): Promise<string[]> {
  const client = await connectClient(superUrl);
  try {
    const { rows } = await client.query<{ datname: string }>(
      "select datname from pg_database where datname = $1 or datname like $2",
      [`agent_ledger_tpl_${harnessPid}`, `t_chaos_${harnessPid}_%`],
    );
    return rows.map((r) => r.datname);
  } finally {
    await client.end();
  }
}

/** The harness's scratch folders (its processes' output) in the temp folder. */
const scratchDirs = () =>
  new Set(readdirSync(tmpdir()).filter((name) => name.startsWith("agent-ledger-chaos-")));

async function eventuallyNothingLeft(pid: number, scratchBefore: Set<string>) {
  const newScratch = () => [...scratchDirs()].filter((d) => !scratchBefore.has(d));
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    const clean =
      leftBehind(pid).length === 0 &&
      (await databasesOf(pid)).length === 0 &&
      newScratch().length === 0;
    if (clean) return;
    await sleep(200);
  }
  expect(leftBehind(pid)).toEqual([]);
  expect(await databasesOf(pid)).toEqual([]);
  expect(newScratch()).toEqual([]);
}

const haveProc = (() => {
  try {
    readdirSync("/proc/self");
    return true;
  } catch {
    return false;
  }
})();

describe("npm run chaos", () => {
  it("kills workers mid-task and finds no duplicate, no lost task and an intact ledger", async () => {
    const scratchBefore = scratchDirs();
    const run = harness([
      "--tasks",
      "20",
      "--workers",
      "2",
      "--kills",
      "4",
      "--seed",
      "7",
      "--json-only",
    ]);
    const pid = run.child.pid ?? 0;
    const { code, stdout, stderr } = await run.exited;
    expect(code, stderr).toBe(0);
    const lines = stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const result = resultSchema.parse(JSON.parse(lines[0] ?? ""));
    expect(result).toMatchObject({ tasks: 20, duplicates: 0, lost: 0, held: 0 });
    expect(result.chain.ok).toBe(true);
    expect(result.chain.entries).toBeGreaterThan(20 * 3);
    expect(result.succeeded).toBeGreaterThan(0);
    expect(result.kills.harness).toBe(4);
    expect(result.deliveries.smtp.max).toBeLessThanOrEqual(1);
    expect(result.deliveries.payments.max).toBeLessThanOrEqual(1);
    expect(result.deliveries.missing).toBe(0);
    // Only an unknown SMTP outcome may dead-letter a task here: nothing else is expected to fail.
    expect(Object.keys(result.dead).filter((r) => r !== "outcome_unknown")).toEqual([]);
    expect(result.succeeded + (result.dead.outcome_unknown ?? 0)).toBe(20);
    if (haveProc) await eventuallyNothingLeft(pid, scratchBefore);
    else expect(await databasesOf(pid)).toEqual([]);
  }, 150_000);

  it.runIf(haveProc)(
    "on Ctrl-C stops everything it started and exits 130",
    async () => {
      const scratchBefore = scratchDirs();
      const run = harness(["--tasks", "40", "--workers", "2", "--kills", "1000"]);
      const pid = run.child.pid ?? 0;
      await run.stderrSays("starting 2 workers");
      await sleep(1_500);
      run.child.kill("SIGINT");
      const { code } = await run.exited;
      expect(code).toBe(130);
      await eventuallyNothingLeft(pid, scratchBefore);
    },
    120_000,
  );

  it.runIf(haveProc)(
    "killed with SIGKILL, its watchdog stops everything it started",
    async () => {
      const scratchBefore = scratchDirs();
      const run = harness(["--tasks", "40", "--workers", "2", "--kills", "1000"]);
      const pid = run.child.pid ?? 0;
      await run.stderrSays("starting 2 workers");
      await sleep(1_500);
      // The watchdog, the receivers and two workers at least.
      expect(leftBehind(pid).length).toBeGreaterThanOrEqual(4);
      run.child.kill("SIGKILL");
      await run.exited;
      await eventuallyNothingLeft(pid, scratchBefore);
    },
    120_000,
  );
});
