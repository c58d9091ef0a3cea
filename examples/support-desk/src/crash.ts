// The team's own proof that their tools act once per intent, with agent-ledger/testing: refund
// requests run by worker processes that are killed (SIGKILL) at the runtime's fault points,
// after a refund's claim and after the shop answered but before the result was recorded, until
// every task settles; then the shop says how many refunds it performed.
// `node dist/crash.js` with TEST_DATABASE_URL (a role that may create databases); prints JSON.
import { crashTest, createTestDatabase } from "agent-ledger/testing";
import { startShop } from "./shop.js";

const tasks = Number(process.env.CRASH_TASKS ?? 30);
const kills = Number(process.env.CRASH_KILLS ?? 20);
const shop = await startShop();
const db = await createTestDatabase();
try {
  const result = await crashTest(db, {
    agentsModule: new URL("./agents.js", import.meta.url).pathname,
    tasks: Array.from({ length: tasks }, (_, i) => ({
      agent: "support-refund",
      input: { orderId: `A-${i + 1}`, message: "I was charged twice" },
      key: `refund:A-${i + 1}`,
    })),
    faultPoints: { "effect.started": 0.1, "effect.returned": 0.25, "model.call": 0.05 },
    kills,
    env: { SHOP_URL: shop.url, TICKETS_FILE: `${db.name}.tickets.jsonl` },
  });
  const statuses: Record<string, number> = {};
  for (const t of result.tasks) statuses[t.status] = (statuses[t.status] ?? 0) + 1;
  console.log(
    JSON.stringify({ kills: result.kills, workers: result.workers, statuses, shop: shop.stats() }),
  );
} finally {
  await db.drop();
  shop.server.close();
}
