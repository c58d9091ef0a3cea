// The worker process: the runtime (worker/runtime) over DATABASE_URL or the embedded
// database, until SIGTERM/SIGINT or until the `npm start` process that spawned it is gone.
import { z } from "zod";
import { createPool } from "../db/client";
import { isAlive } from "../db/embedded";
import { openDatabase } from "../db/open";
import { env } from "../lib/env";
import { logger } from "../lib/log";
import { configureFaultPoints, FAULT_POINTS } from "../lib/server/fault-points";
import { configuredPublicKey } from "../lib/server/ledger/signing";
import { createAgents, createModel } from "./agents";
import { startAlertEvaluator } from "./alerts/evaluator";
import { startLedgerVerifier } from "./ledger-verify";
import { type RunningWorker, startWorker } from "./runtime/worker";

const faultPointsSchema = z.partialRecord(z.enum(FAULT_POINTS), z.number().min(0).max(1));

export type WorkerOptions = { concurrency: number };

export async function runWorker(opts: WorkerOptions): Promise<void> {
  // Handlers first: a SIGTERM during start-up must still stop cleanly, not by default action.
  let stopRequested: (why: string) => void = () => {};
  const stopped = new Promise<string>((resolve) => {
    stopRequested = resolve;
  });
  // `on`, not `once`: Ctrl-C reaches this process twice (from the terminal, and forwarded by
  // npm), and a second signal with no listener left would end it mid-task.
  process.on("SIGTERM", () => stopRequested("SIGTERM"));
  process.on("SIGINT", () => stopRequested("SIGINT"));
  const db = await openDatabase();
  const pool = createPool(db.appUrl, {
    max: opts.concurrency + 3,
    applicationName: "agent-ledger-worker",
    log: logger("db"),
  });
  const config = env();
  if (config.AGENT_LEDGER_FAULT_POINTS) {
    configureFaultPoints(faultPointsSchema.parse(JSON.parse(config.AGENT_LEDGER_FAULT_POINTS)));
  }
  const log = logger("worker");
  let worker: RunningWorker;
  try {
    worker = await startWorker({
      logger: log,
      pool,
      agents: createAgents(config, { pool }),
      model: createModel(config),
      concurrency: opts.concurrency,
      leaseMs: config.AGENT_LEDGER_LEASE_MS,
    });
  } catch (err) {
    // A refused start (a schema this code does not know) must end the process, not idle on the pool.
    await pool.end();
    await db.release();
    throw err;
  }
  // Every worker evaluates alert rules; the cursor row makes each (rule, event) alert once.
  const alerts = startAlertEvaluator({ pool });
  // Every worker runs the loop; an advisory lock makes one of them verify each time.
  const verifier = startLedgerVerifier({
    pool,
    intervalMs: config.LEDGER_VERIFY_INTERVAL_SECONDS * 1000,
    publicKey: configuredPublicKey(config),
    maxCheckpointAgeHours: config.LEDGER_CHECKPOINT_MAX_AGE_HOURS,
  });

  const parent = config.AGENT_LEDGER_PARENT_PID;
  if (parent) {
    setInterval(() => {
      if (!isAlive(parent)) stopRequested(`parent process ${parent} is gone`);
    }, 1_000).unref();
  }
  const why = await stopped;
  log.info({ worker: worker.id, why }, "stopping; finishing in-flight work");
  await worker.stop(10_000);
  await alerts.stop();
  await verifier.stop();
  await pool.end();
  await db.release();
}
