// The worker process (`agent-ledger worker --agents <module>`, `npm run worker`): startWorker
// over DATABASE_URL or the embedded database with the agents a module exports, until
// SIGTERM/SIGINT or until the `npm start` process that spawned it is gone.
import { z } from "zod";
import { createPool } from "../db/client";
import { isAlive } from "../db/embedded";
import { openDatabase } from "../db/open";
import { callbackSigning, env } from "../lib/env";
import { errorFields, logger } from "../lib/log";
import { configureFaultPoints, FAULT_POINTS } from "../lib/server/fault-points";
import { configuredPublicKey } from "../lib/server/ledger/signing";
import { startTracing } from "../lib/server/tracing";
import { loadAgentsModule } from "./agents-module";
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY, startWorker } from "./start-worker";

const faultPointsSchema = z.partialRecord(z.enum(FAULT_POINTS), z.number().min(0).max(1));

export type WorkerOptions = {
  concurrency: number;
  /** The module that exports the agents (a path from the working directory, or a package). */
  agents: string;
};

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
  // Before anything that makes spans; flushed at the end so the last attempts' spans leave.
  const tracing = await startTracing("agent-ledger-worker");
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
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let loaded: Awaited<ReturnType<typeof loadAgentsModule>> | undefined;
  try {
    loaded = await loadAgentsModule(opts.agents, { env: process.env, pool });
    log.info({ agents: loaded.agents.map((a) => a.name), from: loaded.from }, "agents loaded");
    worker = await startWorker({
      logger: log,
      pool,
      agents: loaded.agents,
      model: loaded.model,
      concurrency: opts.concurrency,
      leaseMs: config.AGENT_LEDGER_LEASE_MS,
      verifyIntervalMs: config.LEDGER_VERIFY_INTERVAL_SECONDS * 1000,
      ledgerPublicKey: configuredPublicKey(config),
      maxCheckpointAgeHours: config.LEDGER_CHECKPOINT_MAX_AGE_HOURS,
      callbacks: callbackSigning(config),
    });
  } catch (err) {
    await loaded?.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
    await db.release();
    await tracing?.shutdown().catch(() => undefined);
    throw err;
  }

  const parent = config.AGENT_LEDGER_PARENT_PID;
  if (parent) {
    setInterval(() => {
      if (!isAlive(parent)) stopRequested(`parent process ${parent} is gone`);
    }, 1_000).unref();
  }
  const why = await stopped;
  log.info({ worker: worker.id, why }, "stopping; finishing in-flight work");
  await worker.stop(10_000);
  // What the module holds open (an MCP server's process, a client) would keep this one alive.
  await loaded
    .close()
    .catch((err) => log.warn(errorFields(err), "the agents module's close failed"));
  await pool.end();
  await db.release();
  await tracing
    ?.shutdown()
    .catch((err) => log.warn(errorFields(err), "could not send the last spans"));
}

export const WORKER_USAGE = `Options:
  --agents MODULE   the module that exports your agents (required): a path such as
                    ./dist/agents.js, or a package name. It exports \`agents\` (or a default):
                    an array of agents, or a function ({ env, pool }) returning them; it may
                    export \`model\` the same way.
  --concurrency N   tasks run at once (1 to ${MAX_CONCURRENCY}, default ${DEFAULT_CONCURRENCY})`;

/** `--agents M [--concurrency N]`, or what is wrong with them. */
export function parseWorkerArgs(values: {
  agents?: string;
  concurrency?: string;
}): WorkerOptions | { error: string } {
  const concurrency = Number(values.concurrency ?? DEFAULT_CONCURRENCY);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY) {
    return {
      error: `--concurrency must be a whole number from 1 to ${MAX_CONCURRENCY}, got "${values.concurrency}"`,
    };
  }
  if (!values.agents) {
    return { error: "--agents is required: the module that exports your agents" };
  }
  return { concurrency, agents: values.agents };
}
