// What startWorker takes (WorkerConfig) and what it returns (RunningWorker), and the logger
// a config's `log` callback becomes.
import type pg from "pg";
import pino from "pino";
import type { WorkerRole } from "../../db/schema/workers";
import type { CallbackSigning } from "../../lib/domain/callback-token";
import type { Logger } from "../../lib/log";
import type { Agent } from "../../lib/sdk/define";
import type { ModelClient } from "../../lib/sdk/model";
import type { AttemptOutcome } from "./run-attempt";

export type WorkerConfig = {
  pool: pg.Pool;
  agents: readonly Agent[];
  concurrency: number;
  model?: ModelClient;
  /** Signs ctx.callbackUrl links (start-worker.ts). */
  callbacks?: CallbackSigning;
  /** Task lease; renewed every third of it. A crashed worker's tasks return after this long. */
  leaseMs?: number;
  pollMs?: number;
  /** How often the worker deletes expired events and idle rate-limit buckets (housekeeping.ts). */
  housekeepingMs?: number;
  id?: string;
  /**
   * `alerts`: the web server's alert-delivery worker, which the no_live_worker rule does not
   * count (it is there precisely when the fleet is not). Default `worker`.
   */
  role?: WorkerRole;
  /** Where log lines go; default lib/log's "worker" logger with the worker id. */
  logger?: Logger;
  /** Receives each log line's message instead (tests pass () => {} to keep quiet). */
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
  /** False while the database has been unreachable longer than the lease: nothing is acted on. */
  acting: () => boolean;
};

export function callbackLogger(fn: (message: string) => void): Logger {
  return pino(
    { level: "debug", base: undefined, timestamp: false },
    {
      write: (line: string) => {
        const parsed = JSON.parse(line) as { msg?: unknown };
        fn(String(parsed.msg ?? ""));
      },
    },
  );
}
