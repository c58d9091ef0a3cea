// A worker process that runs only the alert-delivery agent, with the fault points its
// environment configures: the alert journey test starts it to be SIGKILLed between a webhook
// being sent and its result being recorded, exactly as a machine dying there would be.
import { z } from "zod";
import { createPool } from "../../db/client";
import { env } from "../../lib/env";
import { logger } from "../../lib/log";
import { configureFaultPoints, FAULT_POINTS } from "../../lib/server/fault-points";
import { getAlertDestination } from "../../lib/server/queries/get-alert-destination";
import { alertDeliveryAgent } from "../agents/alert-delivery";
import { startWorker } from "../runtime/worker";

const config = env();
if (!config.DATABASE_URL) {
  console.error("journey-worker: DATABASE_URL is required");
  process.exit(2);
}
const faults = z.partialRecord(z.enum(FAULT_POINTS), z.number().min(0).max(1));
configureFaultPoints(faults.parse(JSON.parse(config.AGENT_LEDGER_FAULT_POINTS ?? "{}")));
const pool = createPool(config.DATABASE_URL, {
  max: 4,
  applicationName: "alert-journey-worker",
  log: logger("db"),
});
const worker = await startWorker({
  pool,
  agents: [alertDeliveryAgent({ loadDestination: (id) => getAlertDestination(pool, id) })],
  concurrency: 1,
  leaseMs: config.AGENT_LEDGER_LEASE_MS,
});
process.once("SIGTERM", () => {
  void worker.stop(1_000).then(() => pool.end());
});
