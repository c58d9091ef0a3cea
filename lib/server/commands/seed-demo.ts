// The embedded demo's starting data: a global retry policy, an alert rule for the demo webhook
// sink and a realistic mix of tasks for the example agents. Runs once per database (a
// `demo.seeded` entry marks it). `npm start` seeds before its worker has published the agents,
// so nothing is checked then; seeded later (agent-ledger seed against a running fleet), a task
// the published schema refuses (the deliberately bad refund) is left out and counted.
import type pg from "pg";
import { withTransaction } from "../../../db/client";
import { operator } from "../../domain/access";
import { policyInForceChanges } from "../../domain/retry-policy";
import { DEMO_WEBHOOK_SECRET, DEMO_WEBHOOK_URL } from "../../env";
import { appendLedger, SYSTEM_STREAM } from "../ledger/append-ledger";
import { insertAlertRule } from "./create-alert-rule";
import { enqueueTask } from "./enqueue-task";

export const SEED_ACTOR = "system:seed";

export const DEFAULT_POLICY = {
  maxAttempts: 5,
  backoffInitialMs: 1_000,
  backoffFactor: 2,
  backoffMaxMs: 60_000,
  attemptTimeoutMs: 60_000,
  budget: 1,
};

// A realistic mix: with the demo receivers' seeded faults, some reminders end as unknown
// outcomes for a human, big refunds wait for approval, one bad input is dead-lettered, and
// the rest succeed (a few after a retry or a reconciliation).
const DEMO_TASKS = [
  ...[
    ["inv_1001", "ada@example.com"],
    ["inv_1002", "grace@example.com"],
    ["inv_1003", "linus@example.com"],
    ["inv_1004", "barbara@example.com"],
    ["inv_1005", "ken@example.com"],
    ["inv_1006", "margaret@example.com"],
    ["inv_1007", "edsger@example.com"],
    ["inv_1008", "frances@example.com"],
  ].map(([invoiceId, customerEmail]) => ({
    agent: "invoice-reminder",
    input: { invoiceId, customerEmail },
  })),
  {
    agent: "refund",
    input: {
      orderId: "ord_2001",
      amountCents: 1_299,
      currency: "usd",
      reason: "damaged in transit",
    },
  },
  {
    agent: "refund",
    input: {
      orderId: "ord_2002",
      amountCents: 48_000,
      currency: "usd",
      reason: "duplicate charge",
    },
  },
  {
    agent: "refund",
    input: {
      orderId: "ord_2003",
      amountCents: 2_500,
      currency: "usd",
      reason: "customer changed their mind",
    },
  },
  {
    agent: "refund",
    input: {
      orderId: "ord_2004",
      amountCents: 120_000,
      currency: "usd",
      reason: "fraudulent order",
    },
  },
  {
    agent: "refund",
    input: {
      orderId: "ord_2005",
      amountCents: 900,
      currency: "US dollars",
      reason: "late delivery",
    },
  },
];

export async function seedDemo(pool: pg.Pool): Promise<{ seeded: boolean }> {
  return withTransaction(pool, async (client) => {
    // Serialize concurrent seeders on the system stream's head.
    await client.query(
      "insert into ledger_streams (stream, head_seq, head_hash) values ($1, 0, repeat('0', 64)) on conflict do nothing",
      [SYSTEM_STREAM],
    );
    await client.query("select 1 from ledger_streams where stream = $1 for update", [
      SYSTEM_STREAM,
    ]);
    const done = await client.query(
      "select 1 from ledger_entries where stream = $1 and kind = 'demo.seeded' limit 1",
      [SYSTEM_STREAM],
    );
    if ((done.rowCount ?? 0) > 0) return { seeded: false };

    const inserted = await client.query(
      `insert into retry_policies (scope, max_attempts, backoff_initial_ms, backoff_factor, backoff_max_ms, attempt_timeout_ms, budget, updated_by)
       values ('global', $1, $2, $3, $4, $5, $6, $7)
       on conflict (scope) do nothing`,
      [
        DEFAULT_POLICY.maxAttempts,
        DEFAULT_POLICY.backoffInitialMs,
        DEFAULT_POLICY.backoffFactor,
        DEFAULT_POLICY.backoffMaxMs,
        DEFAULT_POLICY.attemptTimeoutMs,
        DEFAULT_POLICY.budget,
        SEED_ACTOR,
      ],
    );
    if ((inserted.rowCount ?? 0) > 0) {
      await appendLedger(client, SYSTEM_STREAM, {
        kind: "policy.changed",
        actor: SEED_ACTOR,
        data: {
          scope: "global",
          before: null,
          after: DEFAULT_POLICY,
          // As set-policy records it: the built-in value each field replaced.
          inForce: policyInForceChanges("global", null, DEFAULT_POLICY, {}),
        },
      });
    }
    // Dead letters reach the demo webhook sink, signed with the secret it knows.
    const rule = await insertAlertRule(
      client,
      {
        name: "Demo: every dead letter",
        kind: "dead_letter",
        destination: "webhook",
        url: DEMO_WEBHOOK_URL,
      },
      SEED_ACTOR,
      { secret: DEMO_WEBHOOK_SECRET },
    );
    if (!rule.ok) throw new Error(`the demo alert rule: ${rule.message}`);
    const seeder = operator(SEED_ACTOR);
    let refused = 0;
    for (const [i, task] of DEMO_TASKS.entries()) {
      const result = await enqueueTask(client, seeder, {
        ...task,
        key: `demo-seed-${i}`,
        unpublished: "enqueue",
      });
      if (result.ok) continue;
      if (result.code !== "invalid") throw new Error(`the demo task ${i}: ${result.message}`);
      refused++;
    }
    await appendLedger(client, SYSTEM_STREAM, {
      kind: "demo.seeded",
      actor: SEED_ACTOR,
      data: { tasks: DEMO_TASKS.length - refused, ...(refused > 0 ? { refused } : {}) },
    });
    return { seeded: true };
  });
}
