// `agent-ledger alerts` as scripts see it: a real process against a real database, judged by
// exit code, output and the rows and ledger entries it leaves.
import { describe, expect, it } from "vitest";
import { stageAlertOutage } from "../../db/testing/alert-outage";
import { setUpTestDatabase } from "../../db/testing/database";
import { isWebhookSecret } from "../../lib/domain/alerts-signature";
import { ACTOR, cliOn } from "./testing";

const t = await setUpTestDatabase("cli-alerts");
const run = cliOn(t);
const cli = (args: string[]) => run(["alerts", ...args]);

describe("agent-ledger alerts", { timeout: 240_000 }, () => {
  it("creates a webhook rule (secret once), lists it by host, disables, deletes; all in the ledger", async () => {
    const made = cli([
      "create",
      "--name",
      "refund dead letters",
      "--kind",
      "dead_letter",
      "--agent",
      "refund",
      "--destination",
      "webhook",
      "--url",
      "https://hooks.example.com/in/secret-path",
    ]);
    expect(made.code, made.stderr).toBe(0);
    const secret = made.stdout.trim();
    expect(isWebhookSecret(secret)).toBe(true);

    const listed = cli(["list", "--json"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain("secret-path");
    expect(listed.stdout).not.toContain(secret);
    const [rule] = JSON.parse(listed.stdout) as { id: string; destinationHost: string }[];
    expect(rule?.destinationHost).toBe("hooks.example.com");

    expect(cli(["disable", "--id", rule?.id ?? ""]).code).toBe(0);
    const bad = cli([
      "create",
      "--name",
      "x",
      "--kind",
      "dead_letter",
      "--destination",
      "slack",
      "--url",
      "file:///etc/passwd",
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/http or https/);
    expect(cli(["delete", "--id", rule?.id ?? ""]).code).toBe(0);
    expect(cli(["delete", "--id", rule?.id ?? ""]).code).toBe(1);

    const evaluated = cli(["evaluate", "--json"]);
    expect(evaluated.code).toBe(0);
    expect(JSON.parse(evaluated.stdout)).toMatchObject({ enqueued: 0 });

    const { rows } = await t.pool.query<{ kind: string; actor: string }>(
      "select kind, actor from ledger_entries where stream = 'system' and kind like 'alert_rule.%' order by seq",
    );
    expect(rows).toEqual([
      { kind: "alert_rule.created", actor: ACTOR },
      { kind: "alert_rule.disabled", actor: ACTOR },
      { kind: "alert_rule.deleted", actor: ACTOR },
    ]);
  });

  it("retries a failing destination's undelivered alerts once, then says there is nothing left", async () => {
    const outage = await stageAlertOutage(t.pool, { deliveries: 4, refunds: 2, enabled: false });
    const retried = cli(["retry", "--id", outage.ruleId, "--json"]);
    expect(retried.code, retried.stderr).toBe(0);
    expect(JSON.parse(retried.stdout)).toEqual({ ruleId: outage.ruleId, retried: 4, skipped: 0 });
    const again = cli(["retry", "--id", outage.ruleId]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("nothing to retry");
    const { rows } = await t.pool.query<{ agent: string; status: string; n: number }>(
      "select agent, status, count(*)::int as n from tasks group by 1, 2 order by 1",
    );
    expect(rows).toEqual([
      { agent: "alert-delivery", status: "queued", n: 4 },
      { agent: "refund", status: "dead", n: 2 },
    ]);
  });
});
