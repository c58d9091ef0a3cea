// Alert-rule commands and the evaluator on real PostgreSQL: every change is a system entry
// with before, after and who and never the secret; stale versions conflict; one delivery task
// per (rule, event) however often the evaluator runs; the delivery agent's own failures and
// events older than a rule never alert.
import { describe, expect, it } from "vitest";
import { withTransaction } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import { operator } from "../../domain/access";
import { ALERT_DELIVERY_AGENT } from "../../domain/alerts";
import { appendLedger, taskStream } from "../ledger/append-ledger";
import { readAlertRules } from "../queries/list-alert-rules";
import { createAlertRule } from "./create-alert-rule";
import { deleteAlertRule } from "./delete-alert-rule";
import { insertTask } from "./enqueue-task";
import { evaluateAlerts } from "./evaluate-alerts";
import { updateAlertRule } from "./update-alert-rule";

const db = await setUpTestDatabase("alert-rules");
const ADMIN = "user:admin@example.com";
const SLACK = "https://hooks.slack.example/services/T1/B2/very-secret-path";

async function systemEntries(kindPrefix: string) {
  const { rows } = await db.pool.query<{ kind: string; actor: string; data: unknown }>(
    "select kind, actor, data from ledger_entries where stream = 'system' and kind like $1 order by seq",
    [`${kindPrefix}%`],
  );
  return rows;
}

/** A task of `agent` that dead-letters now (its ledger entry is what the evaluator reads). */
async function deadLetter(agent: string, reason = "exhausted"): Promise<string> {
  return withTransaction(db.pool, async (client) => {
    const { taskId } = await insertTask(client, { agent, input: {}, actor: "test" });
    await client.query(
      "update tasks set status = 'dead', dead_reason = $2, run_at = now() + interval '1 hour' where id = $1",
      [taskId, reason],
    );
    await appendLedger(client, taskStream(taskId), {
      kind: "task.dead_lettered",
      actor: "worker:test",
      taskId,
      data: { attempt: 1, reason },
    });
    return taskId;
  });
}

async function deliveries(ruleId: string) {
  const { rows } = await db.pool.query<{ id: string; input: { event: { taskId: string } } }>(
    "select id, input from tasks where agent = $1 and input->>'ruleId' = $2",
    [ALERT_DELIVERY_AGENT, ruleId],
  );
  return rows;
}

describe("alert rule commands", () => {
  it("create, edit, disable, enable, delete: each a system entry with who, never the secret", async () => {
    const created = await createAlertRule(db.pool, operator(ADMIN), {
      name: "all dead",
      kind: "dead_letter",
      destination: "webhook",
      url: "https://a.example/hook",
    });
    if (!created.ok) throw new Error(created.message);
    const { id, secret } = created.value;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const spec = {
      name: "all dead",
      kind: "dead_letter",
      destination: "webhook",
      url: "https://a.example/hook",
    } as const;
    const edited = await updateAlertRule(db.pool, operator(ADMIN), {
      id,
      version: 1,
      rule: { ...spec, agent: "refund" },
    });
    expect(edited).toMatchObject({ ok: true, value: { version: 2, secret: null } });
    const stale = await updateAlertRule(db.pool, operator(ADMIN), { id, version: 1, rule: spec });
    expect(stale).toMatchObject({ ok: false, code: "conflict" });
    await updateAlertRule(db.pool, operator(ADMIN), {
      id,
      version: 2,
      rule: { ...spec, agent: "refund", enabled: false },
    });
    await updateAlertRule(db.pool, operator(ADMIN), {
      id,
      version: 3,
      rule: { ...spec, agent: "refund" },
    });
    // Becoming Slack drops the secret; becoming a webhook again gets a new one, shown once.
    await updateAlertRule(db.pool, operator(ADMIN), {
      id,
      version: 4,
      rule: { ...spec, destination: "slack", url: SLACK },
    });
    const back = await updateAlertRule(db.pool, operator(ADMIN), { id, version: 5, rule: spec });
    if (!back.ok) throw new Error(back.message);
    expect(back.value.secret).toMatch(/^whsec_/);
    expect(back.value.secret).not.toBe(secret);
    expect(await deleteAlertRule(db.pool, operator(ADMIN), { id, version: 5 })).toMatchObject({
      ok: false,
      code: "conflict",
    });
    expect(await deleteAlertRule(db.pool, operator(ADMIN), { id, version: 6 })).toMatchObject({
      ok: true,
    });
    expect(await deleteAlertRule(db.pool, operator(ADMIN), { id, version: 6 })).toMatchObject({
      ok: false,
      code: "not_found",
    });
    expect(
      await deleteAlertRule(db.pool, operator(ADMIN), { id: "not-a-uuid", version: 1 }),
    ).toMatchObject({ ok: false, code: "not_found" });

    const entries = await systemEntries("alert_rule.");
    expect(entries.map((e) => e.kind)).toEqual([
      "alert_rule.created",
      "alert_rule.updated",
      "alert_rule.disabled",
      "alert_rule.enabled",
      "alert_rule.updated",
      "alert_rule.updated",
      "alert_rule.deleted",
    ]);
    expect(entries.every((e) => e.actor === ADMIN)).toBe(true);
    expect(entries[1]?.data).toMatchObject({ before: { agent: null }, after: { agent: "refund" } });
    expect(entries[6]?.data).toMatchObject({ before: { id }, after: null });
    const text = JSON.stringify(entries);
    for (const s of [secret, back.value.secret]) expect(text).not.toContain(s?.slice(6));
    // A Slack incoming-webhook URL is a credential too: only its host and digest are kept.
    expect(text).not.toContain("very-secret-path");
    expect(text).toContain("hooks.slack.example");
  });

  it("refuses non-http URLs and unknown fields before touching the database", async () => {
    const bad = await createAlertRule(db.pool, operator(ADMIN), {
      name: "x",
      kind: "dead_letter",
      destination: "slack",
      url: "file:///etc/passwd",
    });
    expect(bad).toMatchObject({ ok: false, code: "invalid" });
  });
});

describe("the alert evaluator", () => {
  it("enqueues one delivery per (rule, event), however often it runs", async () => {
    const rule = await createAlertRule(db.pool, operator(ADMIN), {
      name: "refund dead",
      kind: "dead_letter",
      agent: "refund",
      destination: "slack",
      url: SLACK,
    });
    if (!rule.ok) throw new Error(rule.message);
    const other = await createAlertRule(db.pool, operator(ADMIN), {
      name: "budget only",
      kind: "dead_letter",
      reason: "budget",
      destination: "slack",
      url: SLACK,
    });
    if (!other.ok) throw new Error(other.message);
    const refundTask = await deadLetter("refund");
    await deadLetter("invoice-reminder");
    // The delivery agent's own dead letter never alerts (it would feed on itself).
    await deadLetter(ALERT_DELIVERY_AGENT);

    await evaluateAlerts(db.pool);
    await evaluateAlerts(db.pool);
    // A second evaluator name reads the same entries again: the enqueue keys still hold.
    await evaluateAlerts(db.pool, { cursor: "second" });
    const sent = await deliveries(rule.value.id);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.input.event.taskId).toBe(refundTask);
    expect(await deliveries(other.value.id)).toHaveLength(0);

    await deadLetter("refund", "budget");
    await evaluateAlerts(db.pool);
    expect(await deliveries(rule.value.id)).toHaveLength(2);
    expect(await deliveries(other.value.id)).toHaveLength(1);

    const listed = (await readAlertRules(db.db)).find((r) => r.id === rule.value.id);
    expect(listed).toMatchObject({
      destinationHost: "hooks.slack.example",
      lastDelivery: { status: "queued" },
    });
    expect(JSON.stringify(listed)).not.toContain("very-secret-path");
  });

  it("an unknown outcome alerts only when it is left for a person, not when the runtime resends", async () => {
    const rule = await createAlertRule(db.pool, operator(ADMIN), {
      name: "unknown outcomes",
      kind: "outcome_unknown",
      destination: "slack",
      url: SLACK,
    });
    if (!rule.ok) throw new Error(rule.message);
    const unknown = async (action: string) =>
      withTransaction(db.pool, async (client) => {
        const { taskId } = await insertTask(client, { agent: "refund", input: {}, actor: "test" });
        await appendLedger(client, taskStream(taskId), {
          kind: "effect.outcome_unknown",
          actor: "worker:test",
          taskId,
          data: { action, ageMs: 1 },
        });
        return taskId;
      });
    await unknown("resend");
    await unknown("reconcile");
    const forPerson = await unknown("dead-letter");
    await evaluateAlerts(db.pool);
    const sent = await deliveries(rule.value.id);
    expect(sent.map((t) => t.input.event.taskId)).toEqual([forPerson]);
  });

  it("a new rule does not alert on dead letters from before it; approvals waiting past N minutes do", async () => {
    await deadLetter("refund");
    // The entry's time is kept to the millisecond: let the rule be clearly younger.
    await new Promise((r) => setTimeout(r, 5));
    const rule = await createAlertRule(db.pool, operator(ADMIN), {
      name: "later",
      kind: "dead_letter",
      destination: "slack",
      url: SLACK,
    });
    if (!rule.ok) throw new Error(rule.message);
    await evaluateAlerts(db.pool);
    expect(await deliveries(rule.value.id)).toHaveLength(0);

    const waiting = await createAlertRule(db.pool, operator(ADMIN), {
      name: "slow",
      kind: "approval_waiting",
      olderThanMinutes: 30,
      destination: "slack",
      url: SLACK,
    });
    if (!waiting.ok) throw new Error(waiting.message);
    const parked = await withTransaction(db.pool, async (client) => {
      const { taskId } = await insertTask(client, { agent: "refund", input: {}, actor: "test" });
      await client.query("update tasks set status = 'awaiting_approval' where id = $1", [taskId]);
      const { rows: a } = await client.query<{ id: string }>(
        `insert into approvals (task_id, effect_key, fingerprint, tool, args, requested_at)
         values ($1, repeat('a', 64), repeat('b', 64), 'refund', '{}', now() - interval '10 minutes') returning id::text`,
        [taskId],
      );
      return { taskId, approvalId: a[0]?.id };
    });
    await evaluateAlerts(db.pool);
    expect(await deliveries(waiting.value.id)).toHaveLength(0);
    await db.pool.query(
      "update approvals set requested_at = now() - interval '31 minutes' where id = $1",
      [parked.approvalId],
    );
    await evaluateAlerts(db.pool);
    await evaluateAlerts(db.pool);
    const sent = await deliveries(waiting.value.id);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.input.event.taskId).toBe(parked.taskId);
  });

  it("a second evaluator skips the pass another one is in, instead of waiting on it", async () => {
    const holder = await db.pool.connect();
    try {
      await holder.query("begin");
      await holder.query("select 1 from alert_cursors where name = 'default' for update");
      expect(await evaluateAlerts(db.pool)).toMatchObject({ skipped: true, enqueued: 0 });
      await holder.query("rollback");
    } finally {
      holder.release();
    }
    expect((await evaluateAlerts(db.pool)).skipped).toBeUndefined();
  });
});
