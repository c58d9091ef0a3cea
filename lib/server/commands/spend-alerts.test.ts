// The spend alert rules on real PostgreSQL: spend_day_over reads today's spend counters and
// spend_rate_over the last hour's model.called entries, per agent or for all agents together;
// each fires once per rule and day (or hour), however often the evaluator runs, and only over
// its own threshold.
import { describe, expect, it } from "vitest";
import { withTransaction } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import { alertRuleFormSchema } from "../../actions/alert-rule-form";
import { operator } from "../../domain/access";
import { ALERT_DELIVERY_AGENT, type AlertRuleInput } from "../../domain/alerts";
import { appendLedger, taskStream } from "../ledger/append-ledger";
import { createAlertRule } from "./create-alert-rule";
import { insertTask } from "./enqueue-task";
import { evaluateAlerts } from "./evaluate-alerts";

const db = await setUpTestDatabase("spend_alerts");
const ADMIN = operator("user:admin@example.com");

async function rule(input: {
  kind: "spend_day_over" | "spend_rate_over";
  agent?: string;
  threshold: number;
}) {
  const created = await createAlertRule(db.pool, ADMIN, {
    name: `${input.kind} ${JSON.stringify(input)}`.slice(0, 120),
    destination: "slack",
    url: "https://hooks.slack.example/services/T/B/x",
    ...input,
  } as AlertRuleInput);
  if (!created.ok) throw new Error(created.message);
  return created.value.id;
}

async function deliveries(ruleId: string) {
  const { rows } = await db.pool.query<{
    key: string;
    input: { event: { id: string; agent: string | null; amount: number; summary: string } };
  }>(
    `select enqueue_key as key, input from tasks where agent = $1 and input->>'ruleId' = $2
     order by created_at`,
    [ALERT_DELIVERY_AGENT, ruleId],
  );
  return rows.map((r) => r.input.event);
}

const today = () => new Date().toISOString().slice(0, 10);

describe("spend alert rules", () => {
  it("take a threshold in money, from the form as text", () => {
    const parsed = alertRuleFormSchema.parse({
      name: "spend",
      kind: "spend_day_over",
      agent: "",
      reason: "dead-letter reason left in a hidden input",
      threshold: "12.5",
      destination: "slack",
      url: "https://h.example/x",
    });
    expect(parsed).toMatchObject({ kind: "spend_day_over", threshold: 12.5 });
    expect(parsed).not.toHaveProperty("reason");
    const bad = alertRuleFormSchema.safeParse({
      name: "spend",
      kind: "spend_rate_over",
      threshold: "0",
      destination: "slack",
      url: "https://h.example/x",
    });
    expect(bad.success).toBe(false);
  });

  it("spend_day_over fires once a day per rule, for its agent or for all agents", async () => {
    await db.pool.query(
      `insert into spend_daily (day, agent, model, backend, calls, cost)
       values ($1, 'sd-a', 'm', 1, 2, 2), ($1, 'sd-b', 'm', 1, 4, 3), ($1, 'sd-b', 'm', 2, 1, 1),
              ($1::date - 1, 'sd-a', 'm', 1, 9, 90)`,
      [today()],
    );
    const agentA = await rule({ kind: "spend_day_over", agent: "sd-a", threshold: 1.5 });
    const all = await rule({ kind: "spend_day_over", threshold: 5 });
    const agentB = await rule({ kind: "spend_day_over", agent: "sd-b", threshold: 4 });
    await evaluateAlerts(db.pool);
    await evaluateAlerts(db.pool);
    const a = await deliveries(agentA);
    expect(a).toHaveLength(1);
    expect(a[0]).toMatchObject({ id: `spend_day_over:${today()}:sd-a`, agent: "sd-a", amount: 2 });
    expect(a[0]?.summary).toMatch(/^Spend today: agent sd-a spent \$2\.00 of model calls today/);
    expect(await deliveries(all)).toMatchObject([{ agent: null, amount: 6 }]);
    // 3 + 1 over two backends is 4: not over 4.
    expect(await deliveries(agentB)).toHaveLength(0);
    // More spend the same day: still the one alert.
    await db.pool.query(
      `update spend_daily set cost = cost + 10 where day = $1 and agent = 'sd-a'`,
      [today()],
    );
    await evaluateAlerts(db.pool);
    expect(await deliveries(agentA)).toHaveLength(1);
  });

  it("spend_rate_over fires on the last hour's model calls, once an hour per rule", async () => {
    await withTransaction(db.pool, async (client) => {
      const { taskId } = await insertTask(client, {
        agent: "sr-a",
        input: {},
        actor: "test",
      });
      for (const cost of [0.5, 0.4, 0.3]) {
        await appendLedger(client, taskStream(taskId), {
          kind: "model.called",
          actor: "worker:test",
          taskId,
          data: { step: 1, model: "m", cost },
        });
      }
    });
    const over = await rule({ kind: "spend_rate_over", agent: "sr-a", threshold: 1 });
    const under = await rule({ kind: "spend_rate_over", agent: "sr-a", threshold: 1.5 });
    await evaluateAlerts(db.pool);
    await evaluateAlerts(db.pool);
    const fired = await deliveries(over);
    expect(fired).toHaveLength(1);
    expect(fired[0]?.id).toBe(`spend_rate_over:${new Date().toISOString().slice(0, 13)}:sr-a`);
    expect(fired[0]?.amount).toBeCloseTo(1.2, 9);
    expect(fired[0]?.summary).toMatch(
      /^Spend rate: agent sr-a spent \$1\.20 of model calls in the hour/,
    );
    expect(await deliveries(under)).toHaveLength(0);
  });
});
