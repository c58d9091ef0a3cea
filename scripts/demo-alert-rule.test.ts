// The demo alert rule follows the demo webhook sink to the port it really took: moved through the
// admins' command (a ledger entry by the launcher), left alone when already there, and never
// moved once an admin pointed it somewhere else.
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../db/testing/database";
import { operator } from "../lib/domain/access";
import { DEMO_WEBHOOK_URL } from "../lib/env";
import { createAlertRule } from "../lib/server/commands/create-alert-rule";
import { seedDemo } from "../lib/server/commands/seed-demo";
import { updateAlertRule } from "../lib/server/commands/update-alert-rule";
import { getAlertDestination } from "../lib/server/queries/get-alert-destination";
import { startWebhookSink } from "../worker/demo/webhook-sink";
import { LAUNCHER_ACTOR, pointDemoRulesAt } from "./demo-alert-rule";

const db = await setUpTestDatabase("demo_alert_rule");
await seedDemo(db.pool);

const demoRule = async () => {
  const { rows } = await db.pool.query<{ id: string; version: number; url: string }>(
    "select id, version, url from alert_rules where name = 'Demo: every dead letter'",
  );
  const row = rows[0];
  if (!row) throw new Error("the demo seeded no alert rule");
  return row;
};

const ruleEntries = async (id: string) =>
  (
    await db.pool.query<{ kind: string; actor: string }>(
      "select kind, actor from ledger_entries where stream = 'system' and kind like 'alert_rule.%' and data->'after'->>'id' = $1 order by seq",
      [id],
    )
  ).rows;

describe("pointDemoRulesAt", () => {
  it("moves the seeded rule to the sink's port, with a ledger entry by the launcher, once", async () => {
    const sink = await startWebhookSink({ port: 0 });
    try {
      const before = await demoRule();
      expect(before.url).toBe(DEMO_WEBHOOK_URL);
      const moved = await pointDemoRulesAt(db.pool, sink.url);
      const to = `${sink.url}/alerts`;
      expect(moved).toEqual([{ id: before.id, from: DEMO_WEBHOOK_URL, to }]);
      // Where a delivery of this rule now goes, and with the secret the sink checks.
      const destination = await getAlertDestination(db.pool, before.id);
      expect(destination).toMatchObject({ url: to });
      expect(await ruleEntries(before.id)).toEqual([
        { kind: "alert_rule.created", actor: "system:seed" },
        { kind: "alert_rule.updated", actor: LAUNCHER_ACTOR },
      ]);
      // Started again on the same port: nothing to do, nothing recorded.
      expect(await pointDemoRulesAt(db.pool, sink.url)).toEqual([]);
      expect(await ruleEntries(before.id)).toHaveLength(2);
      // Back on 4343 next time: the rule follows back.
      expect(await pointDemoRulesAt(db.pool, "http://127.0.0.1:4343")).toEqual([
        { id: before.id, from: to, to: DEMO_WEBHOOK_URL },
      ]);
    } finally {
      await sink.stop();
    }
  });

  it("leaves a demo rule an admin pointed elsewhere, and rules of the admins' own", async () => {
    const admin = operator("user:admin@example.com");
    const own = await createAlertRule(db.pool, admin, {
      name: "ops webhook",
      kind: "dead_letter",
      destination: "webhook",
      url: "http://127.0.0.1:4343/alerts",
    });
    if (!own.ok) throw new Error(own.message);
    const rule = await demoRule();
    const repointed = await updateAlertRule(db.pool, admin, {
      id: rule.id,
      version: rule.version,
      rule: {
        name: "Demo: every dead letter",
        kind: "dead_letter",
        destination: "webhook",
        url: "https://hooks.example.com/agent-ledger",
      },
    });
    if (!repointed.ok) throw new Error(repointed.message);
    expect(await pointDemoRulesAt(db.pool, "http://127.0.0.1:45999")).toEqual([]);
    expect((await demoRule()).url).toBe("https://hooks.example.com/agent-ledger");
    expect((await getAlertDestination(db.pool, own.value.id))?.url).toBe(
      "http://127.0.0.1:4343/alerts",
    );
  });
});
