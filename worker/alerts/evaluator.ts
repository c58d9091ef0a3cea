// The alert evaluator as a loop: one evaluateAlerts pass every `intervalMs`, for a worker
// process (or any process with the database) to run beside its worker. Passes never overlap,
// and evaluators in several processes queue on the cursor row, so running one per worker is
// safe: each (rule, event) is enqueued once whoever sees it first.
import type pg from "pg";
import { isConnectionError } from "../../db/retry";
import { errorFields, logger } from "../../lib/log";
import { type EvaluateOptions, evaluateAlerts } from "../../lib/server/commands/evaluate-alerts";
import { type Periodic, startPeriodic } from "../runtime/periodic";

export type AlertEvaluatorConfig = EvaluateOptions & {
  pool: pg.Pool;
  /** Also how late an approval_waiting alert can be. */
  intervalMs?: number;
};

export type AlertEvaluator = Periodic;

export function startAlertEvaluator(config: AlertEvaluatorConfig): AlertEvaluator {
  const log = logger("alerts");
  const { pool, intervalMs = 5_000, ...options } = config;
  const pass = async () => {
    try {
      const result = await evaluateAlerts(pool, options);
      if (result.enqueued > 0) log.info({ ...result }, "alerts enqueued");
    } catch (err) {
      // The next pass reads from the same cursor: nothing is skipped by a failed one.
      // A database outage is logged once by the worker; here it would repeat every pass.
      if (isConnectionError(err))
        log.debug({ ...errorFields(err) }, "alert evaluation waits for the database");
      else log.warn({ ...errorFields(err) }, "alert evaluation failed");
    }
  };
  return startPeriodic(intervalMs, pass);
}
