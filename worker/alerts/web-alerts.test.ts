// The web server's alerting with the whole fleet dead: its evaluator sees no live worker and
// its own delivery worker (role alerts, which does not count as the fleet) sends exactly one
// signed webhook for the outage to a real HTTP receiver.
import pino from "pino";
import { afterAll, describe, expect, it, vi } from "vitest";
import { setUpTestDatabase } from "../../db/testing/database";
import { operator } from "../../lib/domain/access";
import { ALERT_DELIVERY_AGENT } from "../../lib/domain/alerts";
import { createAlertRule } from "../../lib/server/commands/create-alert-rule";
import { evaluateAlerts } from "../../lib/server/commands/evaluate-alerts";
import { startWebhookSink } from "../demo/webhook-sink";
import { startWebAlerts } from "./web-alerts";

const db = await setUpTestDatabase("web_alerts");
const sink = await startWebhookSink({ secrets: [] });
afterAll(() => sink.stop());

describe("alerts delivered by the web server", () => {
  it("a dead fleet: one signed no_live_worker delivery, however often the evaluator runs", async () => {
    // The fleet's last worker was seen ten minutes ago.
    await db.pool.query(
      `insert into workers (id, host, pid, agents, last_seen_at)
       values ('fleet-1', 'h', 1, '{refund}', now() - interval '10 minutes')`,
    );
    const created = await createAlertRule(db.pool, operator("user:admin@example.com"), {
      name: "fleet down",
      kind: "no_live_worker",
      silentForSeconds: 60,
      destination: "webhook",
      url: `${sink.url}/hooks/agent-ledger`,
    });
    if (!created.ok || !created.value.secret) throw new Error("could not create the rule");
    sink.addSecret(created.value.secret);

    const alerts = await startWebAlerts({
      pool: db.pool,
      logger: pino({ level: "silent" }),
      intervalMs: 50,
      pollMs: 50,
      leaseMs: 1_500,
    });
    try {
      await vi.waitFor(() => expect(sink.accepted()).toHaveLength(1), {
        timeout: 20_000,
        interval: 50,
      });
      await evaluateAlerts(db.pool);
      await evaluateAlerts(db.pool);
    } finally {
      await alerts.stop();
    }
    const body = JSON.parse(sink.accepted()[0]?.body ?? "{}") as { type?: string };
    expect(body.type).toBe("alert.no_live_worker");
    const { rows } = await db.pool.query<{ status: string }>(
      "select status from tasks where agent = $1",
      [ALERT_DELIVERY_AGENT],
    );
    expect(rows).toEqual([{ status: "succeeded" }]);
    expect(sink.requests()).toHaveLength(1);
    // The web server's delivery worker is present, as role alerts: not the fleet.
    const { rows: presence } = await db.pool.query<{ role: string; agents: string[] }>(
      "select role, agents from workers where id <> 'fleet-1'",
    );
    expect(presence).toEqual([{ role: "alerts", agents: [ALERT_DELIVERY_AGENT] }]);
  });
});
