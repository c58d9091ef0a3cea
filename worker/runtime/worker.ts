// The worker loop: claim batches with FOR UPDATE SKIP LOCKED, run up to `concurrency` attempts,
// renew leases by heartbeat, reap the leases of crashed workers, wake on LISTEN/NOTIFY with a
// polling fallback, and on stop finish in-flight work or hand it back within a grace period.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type pg from "pg";
import type { Agent } from "../../lib/sdk/define";
import type { ModelClient } from "../../lib/sdk/model";
import { TASKS_CHANNEL } from "../../lib/server/commands/enqueue-task";
import { publishCatalog } from "./catalog";
import { type ClaimedAttempt, claimBatch } from "./claim-batch";
import { SuspendError } from "./errors";
import { reapExpiredLeases } from "./reaper";
import { type AttemptOutcome, runAttempt } from "./run-attempt";
import { extendEffectLeases, heartbeat } from "./task-sql";

export type WorkerConfig = {
  pool: pg.Pool;
  agents: readonly Agent[];
  concurrency: number;
  model?: ModelClient;
  /** Task lease; renewed every third of it. A crashed worker's tasks return after this long. */
  leaseMs?: number;
  pollMs?: number;
  id?: string;
  log?: (message: string) => void;
  /** Called after every attempt (tests and the chaos harness count outcomes). */
  onAttempt?: (taskId: string, outcome: AttemptOutcome | "error") => void;
};

export type RunningWorker = {
  id: string;
  /** Stops claiming, waits up to `graceMs` for in-flight attempts, then hands the rest back. */
  stop: (graceMs?: number) => Promise<void>;
  /** Tasks running right now. */
  active: () => number;
};

export async function startWorker(config: WorkerConfig): Promise<RunningWorker> {
  const id = config.id ?? `${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
  const leaseMs = config.leaseMs ?? 30_000;
  const pollMs = config.pollMs ?? 1_000;
  const log = config.log ?? ((m: string) => console.log(`[worker ${id}] ${m}`));
  const agents = new Map(config.agents.map((a) => [a.name, a]));
  const agentNames = [...agents.keys()];
  const active = new Map<string, AbortController>();
  const running = new Set<Promise<void>>();
  let stopping = false;
  let wake: () => void = () => {};

  // What this worker runs, for the web app (agent list, input forms, the two-person rule).
  await publishCatalog(config.pool, config.agents, id);

  const listener = await config.pool.connect();
  listener.on("notification", () => wake());
  await listener.query(`listen ${TASKS_CHANNEL}`);

  const spawnAttempt = (claimed: ClaimedAttempt) => {
    const { task } = claimed;
    const controller = new AbortController();
    active.set(task.id, controller);
    const p = runAttempt(
      {
        pool: config.pool,
        worker: id,
        agents,
        effectLeaseMs: leaseMs,
        model: config.model,
        signal: controller.signal,
      },
      claimed,
    )
      .then(
        (outcome) => config.onAttempt?.(task.id, outcome),
        (err: unknown) => {
          log(`task ${task.id}: could not record the attempt: ${(err as Error).message}`);
          config.onAttempt?.(task.id, "error");
        },
      )
      .finally(() => {
        // A later attempt of the same task may have been claimed meanwhile: keep its entry.
        if (active.get(task.id) === controller) active.delete(task.id);
        running.delete(p);
        wake();
      });
    running.add(p);
  };

  const loop = (async () => {
    while (!stopping) {
      const free = config.concurrency - active.size;
      let claimed = 0;
      if (free > 0 && agentNames.length > 0) {
        try {
          const tasks = await claimBatch(config.pool, id, agentNames, free, leaseMs);
          claimed = tasks.length;
          for (const task of tasks) spawnAttempt(task);
        } catch (err) {
          log(`claim failed: ${(err as Error).message}`);
        }
      }
      if (stopping) break;
      if (claimed > 0 && claimed === free) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = () => {};
    }
  })();

  const beat = setInterval(
    () => {
      void (async () => {
        try {
          const lost = await heartbeat(config.pool, id, [...active.keys()], leaseMs);
          for (const taskId of lost) {
            log(`lost the lease on task ${taskId}; abandoning its attempt`);
            active.get(taskId)?.abort(new Error("lease lost"));
          }
          await extendEffectLeases(config.pool, id, leaseMs);
        } catch (err) {
          log(`heartbeat failed: ${(err as Error).message}`);
        }
      })();
    },
    Math.max(50, Math.floor(leaseMs / 3)),
  );

  const reapNow = () =>
    reapExpiredLeases(config.pool, id, agents).then(
      (n) => {
        if (n > 0) log(`returned ${n} task(s) of crashed workers to the queue`);
      },
      (err: unknown) => log(`reaper failed: ${(err as Error).message}`),
    );
  // Reap at once too: a fleet whose workers die young must still recover expired leases.
  void reapNow();
  const reap = setInterval(() => void reapNow(), Math.max(100, Math.floor(leaseMs / 2)));

  const stop = async (graceMs = 10_000) => {
    if (stopping) return;
    stopping = true;
    wake();
    await loop;
    let graceTimer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((r) => {
      graceTimer = setTimeout(r, graceMs);
    });
    await Promise.race([Promise.all(running), deadline]);
    clearTimeout(graceTimer);
    for (const controller of active.values()) {
      controller.abort(new SuspendError(new Date(), "the worker is shutting down"));
    }
    await Promise.all(running);
    clearInterval(beat);
    clearInterval(reap);
    await listener.query(`unlisten ${TASKS_CHANNEL}`).catch(() => undefined);
    listener.release();
  };

  log(
    agentNames.length > 0
      ? `ready: agents ${agentNames.join(", ")}; concurrency ${config.concurrency}`
      : "ready, but no agents are registered: nothing to run",
  );
  return { id, stop, active: () => active.size };
}
