// agent-ledger/testing's crashTest: the crash harness for a team's own agents. Worker processes
// (`agent-ledger worker --agents <module>`) run the tasks with fault points armed: at each one
// a worker may kill itself with SIGKILL, exactly like a machine dying there (after an effect's
// claim, after the provider answered but before the result is recorded, during a model call).
// A new worker takes over each dead one, until every task settles. The team then counts what
// their provider received: each intent must have arrived once.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type pg from "pg";
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
  /** Worker processes at once (default 1), each replaced by a new one when it dies. */
  workers: z.number().int().min(1).max(16).default(1),
  /** Wait for the tasks' children (ctx.spawn), and theirs, to settle too. */
  descendants: z.boolean().default(false),
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

/** SIGTERM, and SIGKILL after 20 s if it does not stop. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = exited(child);
  child.kill("SIGTERM");
  // A worker that does not stop (its agents module holds something open and exports no close)
  // is ended: the tasks are settled, nothing of theirs is in flight.
  const hard = setTimeout(() => child.kill("SIGKILL"), 20_000);
  await gone;
  clearTimeout(hard);
}

/** Every task spawned by one of `ids`, or by one of those, and so on. */
async function descendantsOf(pool: pg.Pool, ids: readonly string[]): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>(
    `with recursive family(id) as (
       select id from tasks where parent_id = any($1::uuid[])
       union all
       select t.id from tasks t join family f on t.parent_id = f.id
     ) select id from family`,
    [ids],
  );
  return rows.map((r) => r.id);
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
  const current = new Set<ChildProcess>();
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
    current.add(child);
    return child;
  };
  // `workers` slots: each death is a kill at a fault point, a successor takes the slot over.
  const slot = async () => {
    while (!done) {
      const child = spawnWorker(kills < opts.kills);
      const how = await exited(child);
      current.delete(child);
      if (how === "SIGKILL") kills++;
      else if (!done) {
        throw new Error(`crashTest: a worker exited with ${how} (see its output above)`);
      }
    }
  };
  const loop = Promise.all(Array.from({ length: opts.workers }, slot));
  const deadline = Date.now() + opts.timeoutMs;
  try {
    await Promise.race([
      (async () => {
        await waitSettled(db.pool, ids, opts.timeoutMs);
        if (!opts.descendants) return;
        // Children are enqueued by their parents' runs, and a parent joining them runs again once
        // they ended: settled is when the whole family is, and no member was added meanwhile.
        for (let size = -1; ; ) {
          const family = [...ids, ...(await descendantsOf(db.pool, ids))];
          if (family.length === size) return;
          size = family.length;
          await waitSettled(db.pool, family, Math.max(1, deadline - Date.now()));
        }
      })(),
      loop.then(() => {
        throw new Error("crashTest: the workers stopped before the tasks settled");
      }),
    ]);
  } finally {
    done = true;
    await Promise.all([...current].map(stop));
    await loop.catch(() => undefined);
  }
  return { kills, workers, tasks: await Promise.all(ids.map((id) => taskReport(db.pool, id))) };
}
