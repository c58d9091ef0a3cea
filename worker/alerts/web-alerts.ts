// The web server's share of alerting: the evaluator and one alert-delivery-only worker. A fleet
// with no live worker can only be told by a process that is not in the fleet, and the web
// server is the one process every deployment runs. Its worker registers with role "alerts",
// which the no_live_worker rule does not count, and runs no agent but alert-delivery.
import type pg from "pg";
import type { Logger } from "../../lib/log";
import { getAlertDestination } from "../../lib/server/queries/get-alert-destination";
import { alertDeliveryAgent } from "../agents/alert-delivery";
import { startWorker } from "../runtime/worker";
import { startAlertEvaluator } from "./evaluator";

export type WebAlerts = { stop: () => Promise<void> };

export async function startWebAlerts(opts: {
  pool: pg.Pool;
  logger: Logger;
  leaseMs?: number;
  /** Evaluator period (tests shorten it). */
  intervalMs?: number;
  pollMs?: number;
}): Promise<WebAlerts> {
  const worker = await startWorker({
    pool: opts.pool,
    role: "alerts",
    agents: [alertDeliveryAgent({ loadDestination: (id) => getAlertDestination(opts.pool, id) })],
    concurrency: 1,
    leaseMs: opts.leaseMs,
    pollMs: opts.pollMs,
    logger: opts.logger,
  });
  const evaluator = startAlertEvaluator({ pool: opts.pool, intervalMs: opts.intervalMs });
  return {
    stop: async () => {
      await evaluator.stop();
      await worker.stop(5_000);
    },
  };
}
