// The worker a runtime test file runs its tasks on, started and stopped with the file (vitest
// hooks), beside test-support's helpers for staging and reading what it did.
import type pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { setGlobalPolicy } from "./test-support";
import { startWorker } from "./worker";
import type { RunningWorker, WorkerConfig } from "./worker-config";

/**
 * The worker a test file runs its tasks on: started before the file's tests (after inserting
 * `policy` as the global retry policy, when given) and stopped after them. Quiet, 1 s leases,
 * 50 ms polls unless the file says otherwise.
 */
export function workerForFile(
  pool: pg.Pool,
  config: Omit<WorkerConfig, "pool"> & { policy?: Parameters<typeof setGlobalPolicy>[1] },
): { readonly current: RunningWorker } {
  const { policy, ...rest } = config;
  let worker: RunningWorker | undefined;
  beforeAll(async () => {
    if (policy) await setGlobalPolicy(pool, policy);
    worker = await startWorker({ leaseMs: 1_000, pollMs: 50, log: () => {}, ...rest, pool });
  });
  afterAll(async () => {
    await worker?.stop(1_000);
  });
  return {
    get current() {
      if (!worker) throw new Error("the file's worker starts before its tests");
      return worker;
    },
  };
}
