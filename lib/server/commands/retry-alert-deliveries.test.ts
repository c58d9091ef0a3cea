// Retry all of a destination's undelivered alerts, on real PostgreSQL: it authorizes itself,
// replays each dead delivery of the rule (its own entry per task, the admin as actor), touches
// no other rule's deliveries nor any agent's dead letters, and a second press is refused clearly.
import { describe, expect, it } from "vitest";
import { stageAlertOutage } from "../../../db/testing/alert-outage";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testViewer } from "../../auth/testing";
import { principalOf } from "../../domain/access";
import { retryAlertDeliveries } from "./retry-alert-deliveries";

const t = await setUpTestDatabase("retry-alerts");
const admin = principalOf(testViewer("admin", "ada@example.com"));
const reviewer = principalOf(testViewer("reviewer"));

async function statuses(ids: string[]): Promise<Record<string, number>> {
  const { rows } = await t.pool.query<{ status: string; n: number }>(
    "select status, count(*)::int as n from tasks where id = any($1::uuid[]) group by 1",
    [ids],
  );
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

describe("retryAlertDeliveries", () => {
  it("replays one destination's dead deliveries once, each with its own ledger entry", async () => {
    const down = await stageAlertOutage(t.pool, { deliveries: 12, refunds: 5 });
    const other = await stageAlertOutage(t.pool, { deliveries: 3, refunds: 0, name: "other" });

    expect(await retryAlertDeliveries(t.pool, reviewer, { ruleId: down.ruleId })).toMatchObject({
      ok: false,
      code: "forbidden",
      message: expect.stringContaining("alerts:write"),
    });
    expect(await retryAlertDeliveries(t.pool, admin, { ruleId: "not-a-rule" })).toMatchObject({
      ok: false,
      code: "invalid",
    });

    const done = await retryAlertDeliveries(t.pool, admin, { ruleId: down.ruleId });
    expect(done).toEqual({ ok: true, value: { ruleId: down.ruleId, retried: 12, skipped: 0 } });
    expect(await statuses(down.deliveryIds)).toEqual({ queued: 12 });
    // Nothing else moved: the agents' dead letters and the other destination's deliveries.
    expect(await statuses(down.refundIds)).toEqual({ dead: 5 });
    expect(await statuses(other.deliveryIds)).toEqual({ dead: 3 });

    const { rows } = await t.pool.query<{ task_id: string; actor: string; from_step: number }>(
      `select task_id, actor, (data ->> 'fromStep')::int as from_step from ledger_entries
       where kind = 'replay.requested' and task_id = any($1::uuid[])`,
      [down.deliveryIds],
    );
    expect(rows.map((r) => r.task_id).sort()).toEqual([...down.deliveryIds].sort());
    expect(new Set(rows.map((r) => `${r.actor} ${r.from_step}`))).toEqual(
      new Set(["user:ada@example.com 1"]),
    );

    // Again: nothing is dead for that rule any more, and the admin is told so.
    expect(await retryAlertDeliveries(t.pool, admin, { ruleId: down.ruleId })).toEqual({
      ok: false,
      code: "conflict",
      message: "nothing to retry: no alert of this rule is undelivered",
    });
    const { rows: after } = await t.pool.query<{ n: number }>(
      "select count(*)::int as n from ledger_entries where kind = 'replay.requested' and task_id = any($1::uuid[])",
      [down.deliveryIds],
    );
    expect(after[0]?.n).toBe(12);
  });

  it("two admins at once: every delivery is replayed once", async () => {
    const down = await stageAlertOutage(t.pool, { deliveries: 20, refunds: 0, name: "race" });
    const [a, b] = await Promise.all([
      retryAlertDeliveries(t.pool, admin, { ruleId: down.ruleId }),
      retryAlertDeliveries(t.pool, admin, { ruleId: down.ruleId }),
    ]);
    const retried = [a, b].reduce((n, r) => n + (r.ok ? r.value.retried : 0), 0);
    expect(retried).toBe(20);
    expect(await statuses(down.deliveryIds)).toEqual({ queued: 20 });
    const { rows } = await t.pool.query<{ n: number }>(
      "select count(*)::int as n from ledger_entries where kind = 'replay.requested' and task_id = any($1::uuid[])",
      [down.deliveryIds],
    );
    expect(rows[0]?.n).toBe(20);
  });
});
