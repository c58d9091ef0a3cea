// graphile-worker as the benches run it: its pool, its quiet logger, its jobs added in bulk, and
// its runner at the throughput preset of its performance page. The compare section and the
// scale-out section's peer processes (scale-out-graphile.ts) run it the same way.
import { Logger, type RunnerOptions, type WorkerUtils } from "graphile-worker";
import pg from "pg";

export const quietGraphileLogger = new Logger(() => () => {});

export const GRAPHILE_SETTINGS =
  "localQueue.size 500, completeJobBatchDelay 0, failJobBatchDelay 0, maxPoolSize concurrency + 2 (its performance page's preset)";

/**
 * graphile-worker on a pool of ours: with a connection string it makes its own, whose clients
 * have no error handler once it starts ending them, and the drop of the run's database (which
 * terminates what is still connected) then surfaced as an unhandled error. Ours handles errors
 * and is ended, every client closed, before the database is dropped.
 */
export function graphilePool(connectionString: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString, max });
  pool.on("error", () => {});
  // Each client too, while it is checked out (graphile-worker checks for both, and says so).
  pool.on("connect", (client) => client.on("error", () => {}));
  return pool;
}

/** `jobs` bench jobs (payload `{n}`), 5,000 per addJobs call. */
export async function addGraphileJobs(utils: WorkerUtils, jobs: number): Promise<void> {
  for (let i = 0; i < jobs; i += 5_000) {
    const specs = [];
    for (let n = i; n < Math.min(jobs, i + 5_000); n++)
      specs.push({ identifier: "bench", payload: { n } });
    await utils.addJobs(specs);
  }
}

/** The runner's options: `handle` runs each bench job's `n`. */
export function graphileRunOptions(
  pool: pg.Pool,
  concurrency: number,
  handle: (n: number) => Promise<void>,
): RunnerOptions {
  return {
    pgPool: pool,
    concurrency,
    noHandleSignals: true,
    pollInterval: 1_000,
    logger: quietGraphileLogger,
    preset: {
      worker: {
        maxPoolSize: concurrency + 2,
        localQueue: { size: 500 },
        completeJobBatchDelay: 0,
        failJobBatchDelay: 0,
      },
    },
    taskList: {
      bench: async (payload) => handle((payload as { n: number }).n),
    },
  };
}
