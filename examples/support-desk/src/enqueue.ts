// Enqueue one refund request from the team's own code: `node dist/enqueue.js A-7 "I was charged twice"`.
import { enqueue, migrate } from "agent-ledger";
import pg from "pg";
import { supportInput } from "./agents.js";

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error("set DATABASE_URL");
await migrate({ databaseUrl });
const pool = new pg.Pool({ connectionString: databaseUrl });
const [orderId = "A-1", message = "Please refund me"] = process.argv.slice(2);
const { taskId, created } = await enqueue(pool, {
  agent: "support-refund",
  input: supportInput.parse({ orderId, message }),
  key: `refund:${orderId}`,
});
console.log(JSON.stringify({ taskId, created }));
await pool.end();
