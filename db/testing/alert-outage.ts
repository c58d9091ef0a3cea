// The outage the triage screens must survive, staged directly (no worker): an alert rule whose
// receiver is unreachable, its deliveries dead-lettered with the webhook tool's own error, and
// the agents' dead letters beside them (refunds failed by one provider error). The inbox, the
// dead-letter screen and the retry-all command tests share it.
import type pg from "pg";
import { ALERT_DELIVERY_AGENT } from "../../lib/domain/alerts";

/** A webhook URL carrying a token in its path and query: only its host may ever be shown. */
export const OUTAGE_URL = "http://127.0.0.1:4343/hooks/T0KEN-IN-PATH?token=s3cret-in-query";
export const UNREACHABLE = "receiver unreachable (ECONNREFUSED)";
export const REFUND_ERROR = "refund failed: card_declined (402)";

export async function stageAlertOutage(
  pool: pg.Pool,
  opts: {
    deliveries: number;
    refunds: number;
    name?: string;
    /** The refunds' error (a spec on a shared database makes its group its own). */
    refundError?: string;
    /** Off: a running evaluator sends nothing new to the dead receiver (for shared databases). */
    enabled?: boolean;
  },
): Promise<{ ruleId: string; deliveryIds: string[]; refundIds: string[] }> {
  const rule = await pool.query<{ id: string }>(
    `insert into alert_rules (name, kind, destination, url, secret, enabled, created_by)
     values ($1, 'dead_letter', 'webhook', $2, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', $3, 'test')
     returning id`,
    [opts.name ?? "demo dead letters", OUTAGE_URL, opts.enabled ?? true],
  );
  const ruleId = rule.rows[0]?.id;
  if (!ruleId) throw new Error("no rule");
  // Ages a minute apart, oldest first, so the order is the insertion order.
  const dead = async (agent: string, n: number, input: (i: number) => unknown, message: string) => {
    const { rows } = await pool.query<{ id: string }>(
      `insert into tasks (agent, input, status, dead_reason, last_error, attempts, status_changed_at, created_by)
       select $1, (($2::jsonb) -> (i - 1)), 'dead', 'exhausted', $3::jsonb, 8,
              now() - make_interval(mins => $4 - i), 'test'
       from generate_series(1, $4) i
       order by i
       returning id`,
      [
        agent,
        JSON.stringify(Array.from({ length: n }, (_, i) => input(i))),
        JSON.stringify({ name: "EffectNotPerformedError", message }),
        n,
      ],
    );
    return rows.map((r) => r.id);
  };
  const deliveryIds = await dead(
    ALERT_DELIVERY_AGENT,
    opts.deliveries,
    (i) => ({
      ruleId,
      destination: "webhook",
      event: { id: `ledger:${i + 1}`, kind: "dead_letter", at: new Date().toISOString() },
    }),
    UNREACHABLE,
  );
  const refundIds = await dead(
    "refund",
    opts.refunds,
    (i) => ({ orderId: `ord_${i}`, amount: 1_000 + i }),
    opts.refundError ?? REFUND_ERROR,
  );
  return { ruleId, deliveryIds, refundIds };
}
