// The team's own worker process: startWorker in their code (the CLI's `agent-ledger worker
// --agents ./dist/agents.js` does the same). Stops on SIGTERM after handing back its work.
import { startWorker } from "agent-ledger";
import pg from "pg";
import agents, { close, model } from "./agents.js";

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error("set DATABASE_URL");
const pool = new pg.Pool({ connectionString: databaseUrl, max: 8 });
pool.on("error", () => {}); // a dropped idle connection is retried by the worker
const context = { env: process.env, pool };
const worker = await startWorker({
  pool,
  agents: await agents(context),
  model: model(context),
  concurrency: 4,
});
console.log(`worker ${worker.id} running`);
process.once("SIGTERM", async () => {
  await worker.stop();
  await close();
  await pool.end();
  process.exit(0);
});
