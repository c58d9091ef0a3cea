// agent-ledger/testing's crashTest: the crash harness for a team's own agents. Worker processes
// (`agent-ledger worker --agents <module>`) run the tasks with fault points armed: at each one
// a worker may kill itself with SIGKILL, exactly like a machine dying there (after an effect's
// claim, after the provider answered but before the result is recorded, during a model call).
// A new worker takes over each dead one, until every task settles. The team then counts what
// their provider received: each intent must have arrived once.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { enqueue } from "../../lib/sdk/enqueue";
import { FAULT_POINTS } from "../../lib/server/fault-points";
import { type TaskReport, taskReport, waitSettled } from "./task-report";
import type { TestDatabase } from "./test-database";

const optionsSchema = z.object({
  /** The module that exports the agents, as `agent-ledger worker --agents` takes it. */
  agentsModule: z.string().min(1),
  tasks: z
    .array(z.object({ agent: z.string().min(1), input: z.unknown(), key: z.string().optional() }))
    .min(1, "name at least one task"),
  /** Probability (0–1) of dying at each fault point when a worker passes it. */
  faultPoints: z.partialRecord(z.enum(FAULT_POINTS), z.number().min(0).max(1)),
  /** Keep killing until at least this many workers died (default 20); then run clean. */
  kills: z.number().int().min(0).max(10_000).default(20),
  concurrency: z.number().int().min(1).max(256).default(4),
  /** A dead worker's tasks return after this lease (default 1.5 s). */
  leaseMs: z.number().int().min(500).default(1_500),
  timeoutMs: z.number().int().positive().default(300_000),
  /** More environment for the workers (the provider's URL, keys). */
  env: z.record(z.string(), z.string()).default({}),
});

export type CrashTestOptions = z.input<typeof optionsSchema>;

export type CrashTestResult = {
  /** Workers that died by SIGKILL at a fault point. */
  kills: number;
  /** Workers started in all. */
  workers: number;
  tasks: TaskReport[];
};

/** bin/agent-ledger.mjs of this package, from the sources or from dist/. */
function cliPath(): string {
  let dir = new URL(".", import.meta.url);
  for (let i = 0; i < 4; i++) {
    const bin = new URL("bin/agent-ledger.mjs", dir);
    if (existsSync(bin)) return fileURLToPath(bin);
    dir = new URL("..", dir);
  }
  throw new Error("crashTest: cannot find bin/agent-ledger.mjs beside this package");
}

function exited(child: ChildProcess): Promise<NodeJS.Signals | number | null> {
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve(signal ?? code)));
}

export async function crashTest(
  db: Pick<TestDatabase, "pool" | "url">,
  options: CrashTestOptions,
): Promise<CrashTestResult> {
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) throw new TypeError(`crashTest: ${z.prettifyError(parsed.error)}`);
  const opts = parsed.data;
  const ids: string[] = [];
  for (const task of opts.tasks) {
    ids.push((await enqueue(db.pool, { ...task, actor: "crash-test" })).taskId);
  }
  const bin = cliPath();
  let kills = 0;
  let workers = 0;
  let current: ChildProcess | undefined;
  let done = false;
  const spawnWorker = (armed: boolean) => {
    workers++;
    const child = spawn(
      process.execPath,
      [bin, "worker", "--agents", opts.agentsModule, "--concurrency", String(opts.concurrency)],
      {
        stdio: ["ignore", "ignore", "inherit"],
        env: {
          ...process.env,
          ...opts.env,
          DATABASE_URL: db.url,
          DATABASE_OWNER_URL: "",
          AGENT_LEDGER_LEASE_MS: String(opts.leaseMs),
          AGENT_LEDGER_FAULT_POINTS: armed ? JSON.stringify(opts.faultPoints) : "",
          LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
        },
      },
    );
    current = child;
    return child;
  };
  // One worker at a time: each death is a kill at a fault point, its successor takes over.
  const loop = (async () => {
    while (!done) {
      const child = spawnWorker(kills < opts.kills);
      const how = await exited(child);
      if (how === "SIGKILL") kills++;
      else if (!done) {
        throw new Error(`crashTest: a worker exited with ${how} (see its output above)`);
      }
    }
  })();
  try {
    await Promise.race([
      waitSettled(db.pool, ids, opts.timeoutMs),
      loop.then(() => {
        throw new Error("crashTest: the workers stopped before the tasks settled");
      }),
    ]);
  } finally {
    done = true;
    if (current && current.exitCode === null && current.signalCode === null) {
      const child = current;
      const gone = exited(child);
      child.kill("SIGTERM");
      // A worker that does not stop (its agents module holds something open and exports no
      // close) is ended: the tasks are settled, nothing of theirs is in flight.
      const hard = setTimeout(() => child.kill("SIGKILL"), 20_000);
      await gone;
      clearTimeout(hard);
    }
    await loop.catch(() => undefined);
  }
  return { kills, workers, tasks: await Promise.all(ids.map((id) => taskReport(db.pool, id))) };
}
