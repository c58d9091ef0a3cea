// The no_live_worker rule on real PostgreSQL: one delivery task per outage (however often the
// evaluator runs), none while a fleet worker is seen, a new one for the next outage; the web
// server's delivery worker (role alerts) never counts as the fleet.
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../../db/testing/database";
import { alertRuleFormSchema } from "../../actions/alert-rule-form";
import { operator } from "../../domain/access";
import { ALERT_DELIVERY_AGENT, alertRuleSchema } from "../../domain/alerts";
import { createAlertRule } from "./create-alert-rule";
import { evaluateAlerts } from "./evaluate-alerts";

const db = await setUpTestDatabase("no_live_worker");
const ADMIN = "user:admin@example.com";

async function deliveries(ruleId: string) {
  const { rows } = await db.pool.query<{
    key: string;
    input: { event: { id: string; kind: string; summary: string } };
  }>(
    `select enqueue_key as key, input from tasks where agent = $1 and input->>'ruleId' = $2
     order by created_at`,
    [ALERT_DELIVERY_AGENT, ruleId],
  );
  return rows;
}

/** A presence row, last seen `agoSeconds` ago. */
async function seen(id: string, agoSeconds: number, role: "worker" | "alerts" = "worker") {
  await db.pool.query(
    `insert into workers (id, host, pid, role, agents, last_seen_at)
     values ($1, 'test', 1, $2, $3, now() - $4 * interval '1 second')
     on conflict (id) do update set last_seen_at = excluded.last_seen_at`,
    [id, role, role === "alerts" ? [ALERT_DELIVERY_AGENT] : ["refund"], agoSeconds],
  );
}

describe("the no_live_worker rule", () => {
  it("takes silentForSeconds from 10 to 86400 (default 60) and no agent", () => {
    const base = {
      name: "fleet",
      kind: "no_live_worker",
      destination: "slack",
      url: "https://h.example/x",
    };
    const parsed = alertRuleSchema.parse(base);
    expect(parsed).toMatchObject({ kind: "no_live_worker", silentForSeconds: 60 });
    expect(alertRuleSchema.safeParse({ ...base, silentForSeconds: 9 }).success).toBe(false);
    expect(alertRuleSchema.safeParse({ ...base, silentForSeconds: 86_401 }).success).toBe(false);
  });

  it("the dashboard form sends seconds as text and drops an agent left in a hidden input", () => {
    const parsed = alertRuleFormSchema.parse({
      name: "fleet",
      kind: "no_live_worker",
      agent: "refund",
      reason: "",
      olderThanMinutes: "30",
      silentForSeconds: "90",
      destination: "slack",
      url: "https://h.example/x",
    });
    expect(parsed).toEqual({
      name: "fleet",
      kind: "no_live_worker",
      silentForSeconds: 90,
      destination: "slack",
      url: "https://h.example/x",
      enabled: true,
    });
  });

  it("alerts once per outage, not while a worker is seen, and again for the next outage", async () => {
    await seen("fleet-1", 600);
    // The web server's delivery worker is alive, but it is not the fleet.
    await seen("web-alerts", 0, "alerts");
    const created = await createAlertRule(db.pool, operator(ADMIN), {
      name: "fleet down",
      kind: "no_live_worker",
      silentForSeconds: 60,
      destination: "slack",
      url: "https://hooks.slack.example/services/T/B/x",
    });
    if (!created.ok) throw new Error(created.message);
    const ruleId = created.value.id;

    await evaluateAlerts(db.pool);
    await evaluateAlerts(db.pool);
    const first = await deliveries(ruleId);
    expect(first).toHaveLength(1);
    expect(first[0]?.input.event.kind).toBe("no_live_worker");
    expect(first[0]?.input.event.id).toMatch(/^no_live_worker:\d+$/);
    expect(first[0]?.input.event.summary).toMatch(/^No live worker: the last worker was seen at /);
    expect(first[0]?.key).toBe(`alert:${ruleId}:${first[0]?.input.event.id}`);

    // A fleet worker reports in: no outage, nothing new however often the evaluator runs.
    await seen("fleet-2", 0);
    await evaluateAlerts(db.pool);
    await evaluateAlerts(db.pool);
    expect(await deliveries(ruleId)).toHaveLength(1);

    // It goes silent (its newest sighting is now five minutes old): a new outage, one alert.
    await seen("fleet-2", 300);
    await evaluateAlerts(db.pool);
    await evaluateAlerts(db.pool);
    const second = await deliveries(ruleId);
    expect(second).toHaveLength(2);
    expect(second[1]?.input.event.id).not.toBe(first[0]?.input.event.id);
  });

  it("a silence shorter than the rule's threshold is not an outage", async () => {
    await db.pool.query("delete from workers");
    await seen("fleet-3", 30);
    const created = await createAlertRule(db.pool, operator(ADMIN), {
      name: "fleet down for long",
      kind: "no_live_worker",
      silentForSeconds: 3_600,
      destination: "slack",
      url: "https://hooks.slack.example/services/T/B/y",
    });
    if (!created.ok) throw new Error(created.message);
    await evaluateAlerts(db.pool);
    expect(await deliveries(created.value.id)).toHaveLength(0);
  });

  it("a fleet that never reported in is an outage too", async () => {
    await db.pool.query("delete from workers");
    await seen("web-alerts", 0, "alerts");
    const created = await createAlertRule(db.pool, operator(ADMIN), {
      name: "never started",
      kind: "no_live_worker",
      silentForSeconds: 10,
      destination: "slack",
      url: "https://hooks.slack.example/services/T/B/z",
    });
    if (!created.ok) throw new Error(created.message);
    await evaluateAlerts(db.pool);
    await evaluateAlerts(db.pool);
    const rows = await deliveries(created.value.id);
    expect(rows.map((r) => r.input.event.id)).toEqual(["no_live_worker:never"]);
  });
});
