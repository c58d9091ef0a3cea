// Dead refunds as the example refund agent leaves them when the payments provider fails: the
// order looked up (step 1), the refund called and failed (step 2, its effect `failed` with the
// arguments the tool sent: amount and currency among them), the task dead. And the catalog the
// worker would publish for that agent (refund declares its amount and currency), published for a
// spec and taken back after: no worker runs against the e2e database, and other specs approve
// seeded refunds without the two-person rule.
import type pg from "pg";
import { deriveEffectKey, payloadFingerprint } from "../lib/domain/hash";
import { refundAgent } from "../worker/agents/refund";
import { catalogEntry } from "../worker/runtime/catalog";

export type RefundMoney = { amountCents: number; currency: string };

/** Runs `fn` with the refund agent's catalog entry (as a worker publishes it) as `agent`. */
export async function withRefundCatalog<T>(
  db: pg.Pool,
  agent: string,
  fn: () => Promise<T>,
): Promise<T> {
  const entry = catalogEntry(
    refundAgent({ paymentsUrl: "http://127.0.0.1:9", apiKey: "e2e", approvalThresholdCents: 0 }),
  );
  const published = await db.query(
    `insert into agent_catalog (name, input_schema, tools, policy, published_by)
     values ($1, $2, $3, $4, 'e2e') on conflict (name) do nothing returning name`,
    [
      agent,
      JSON.stringify(entry.inputSchema),
      JSON.stringify(entry.tools),
      JSON.stringify(entry.policy),
    ],
  );
  try {
    return await fn();
  } finally {
    if (published.rowCount === 1) {
      await db.query("delete from agent_catalog where name = $1 and published_by = 'e2e'", [agent]);
    }
  }
}

/**
 * `money.length` dead refunds of `agent`, each dead-lettered by `message` (with its own request
 * id, so only the error fingerprint groups them), refunding the amount `money[i]` names.
 */
export async function stageDeadRefunds(
  db: pg.Pool,
  agent: string,
  message: string,
  money: readonly RefundMoney[],
  prefix: string,
): Promise<string[]> {
  const orders = money.map((_, i) => `ord_${prefix}_${i + 1}`);
  const { rows } = await db.query<{ id: string; i: number }>(
    `insert into tasks (agent, input, status, dead_reason, attempts, last_error, created_by)
     select $1, jsonb_build_object('orderId', o, 'amountCents', a, 'currency', c,
                                   'reason', 'customer changed their mind'),
            'dead', 'exhausted', 6,
            jsonb_build_object('message', $2::text || ' (req_' || i || 'x' || i || ')'), 'e2e'
     from unnest($3::text[], $4::int[], $5::text[]) with ordinality as x(o, a, c, i)
     returning id, (input->>'orderId') as i`,
    [agent, message, orders, money.map((m) => m.amountCents), money.map((m) => m.currency)],
  );
  const byOrder = new Map(rows.map((r) => [String(r.i), r.id]));
  const ids = orders.map((o) => byOrder.get(o) ?? "");
  const args = money.map((m, i) => ({
    orderId: orders[i] ?? "",
    paymentIntent: `pi_${orders[i] ?? ""}`,
    amountCents: m.amountCents,
    currency: m.currency,
    reason: "customer" as const,
  }));
  const intents = args.map((a) => ({ orderId: a.orderId, paymentIntent: a.paymentIntent }));
  await db.query(
    `insert into steps (task_id, seq, kind, name, status, result, attempt, completed_at)
     select id, 1, 'step', 'look-up-order', 'completed', r, 1, now()
     from unnest($1::uuid[], $2::jsonb[]) as x(id, r)`,
    [ids, intents.map((i) => JSON.stringify(i))],
  );
  await db.query(
    `insert into steps (task_id, seq, kind, name, status, attempt)
     select id, 2, 'tool', 'refund', 'started', 6 from unnest($1::uuid[]) as id`,
    [ids],
  );
  await db.query(
    `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status, error)
     select k, id, 2, 'refund', i, a, f, 'failed', jsonb_build_object('message', $5::text)
     from unnest($1::text[], $2::uuid[], $3::jsonb[], $4::jsonb[], $6::text[]) as x(k, id, i, a, f)`,
    [
      ids.map((id, n) => deriveEffectKey(id, "refund", intents[n] ?? {})),
      ids,
      intents.map((i) => JSON.stringify(i)),
      args.map((a) => JSON.stringify(a)),
      message,
      args.map((a) => payloadFingerprint(a)),
    ],
  );
  return ids;
}

/** What `money` adds up to per currency. */
export function sumsOf(money: readonly RefundMoney[]): Map<string, number> {
  const sums = new Map<string, number>();
  for (const m of money) sums.set(m.currency, (sums.get(m.currency) ?? 0) + m.amountCents);
  return sums;
}
