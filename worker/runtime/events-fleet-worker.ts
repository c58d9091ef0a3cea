// A worker process for the events fleet test (events-fleet.test.ts): runs only `fleet-waiter`,
// whose task waits for the `fleet.go` event of its own number and returns what it got.
import { z } from "zod";
import { createPool } from "../../db/client";
import { env } from "../../lib/env";
import { logger } from "../../lib/log";
import { defineAgent } from "../../lib/sdk/define";
import { startWorker } from "./worker";

const fleetWaiter = defineAgent({
  name: "fleet-waiter",
  input: z.object({ n: z.number().int() }),
  tools: {},
  run: async (ctx, input) => {
    const got = await ctx.waitForEvent("fleet.go", { match: { n: input.n } });
    const after = await ctx.step("after", async () => ({ attempt: ctx.attempt }));
    return { got, after };
  },
});

const config = env();
if (!config.DATABASE_URL) {
  console.error("events-fleet-worker: DATABASE_URL is required");
  process.exit(2);
}
const pool = createPool(config.DATABASE_URL, {
  max: 6,
  applicationName: "events-fleet-worker",
  log: logger("db"),
});
const worker = await startWorker({
  pool,
  agents: [fleetWaiter],
  concurrency: 4,
  leaseMs: config.AGENT_LEDGER_LEASE_MS,
});
process.once("SIGTERM", () => {
  void worker.stop(1_000).then(() => pool.end());
});
