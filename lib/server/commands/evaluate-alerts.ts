// One pass of the alert evaluator: read the ledger past the cursor (and a short look-back),
// the approvals waiting, match them against the enabled rules, and enqueue one alert-delivery
// task per (rule, event) under the enqueue key alert:<rule>:<event>. All in one transaction
// with the cursor, and the key makes a second pass (or one after a crash) enqueue nothing new.
import type pg from "pg";
import { withTransaction } from "../../../db/client";
import { operator } from "../../domain/access";
import {
  ALERT_DELIVERY_AGENT,
  ALERT_LEDGER_KINDS,
  type AlertEvent,
  type AlertKind,
  type AlertRuleFilter,
  alertEnqueueKey,
  describeEvent,
  matchesRule,
} from "../../domain/alerts";
import { enqueueTask } from "./enqueue-task";

export const ALERTS_ACTOR = "system:alerts";

export type EvaluateOptions = {
  /** The cursor's row; one per evaluator fleet. */
  cursor?: string;
  /**
   * Entries up to this old are read again. An entry id is taken when its transaction inserts
   * it, so a transaction that commits late can land below the cursor; the enqueue key makes
   * reading it twice harmless.
   */
  lookbackMs?: number;
  batch?: number;
};

export type EvaluateResult = {
  events: number;
  enqueued: number;
  cursor: number;
  /** Another evaluator held the cursor: this pass did nothing. */
  skipped?: true;
};

type RuleRow = {
  id: string;
  kind: AlertKind;
  agent: string | null;
  reason: string | null;
  older_than_minutes: number | null;
  silent_for_seconds: number | null;
  threshold: number | null;
  enabled: boolean;
  created_at: Date;
  destination: "slack" | "webhook";
};

type EntryRow = {
  id: string;
  kind: string;
  at: Date;
  task_id: string | null;
  data: { reason?: unknown; action?: unknown; tool?: unknown } | null;
  agent: string | null;
};

const KIND_OF_ENTRY = new Map<string, AlertKind>(
  Object.entries(ALERT_LEDGER_KINDS).map(([k, v]) => [v, k as AlertKind]),
);

export async function evaluateAlerts(
  pool: pg.Pool,
  opts: EvaluateOptions = {},
): Promise<EvaluateResult> {
  const cursorName = opts.cursor ?? "default";
  const lookbackMs = opts.lookbackMs ?? 60_000;
  const batch = opts.batch ?? 500;
  return withTransaction(pool, async (client): Promise<EvaluateResult> => {
    await client.query(
      "insert into alert_cursors (name) values ($1) on conflict (name) do nothing",
      [cursorName],
    );
    // One pass at a time per cursor: a second evaluator (every worker may run one) skips
    // this round instead of holding a connection while it waits.
    const cur = await client.query<{ last: string; now: Date }>(
      "select last_entry_id::text as last, now() as now from alert_cursors where name = $1 for update skip locked",
      [cursorName],
    );
    const head = cur.rows[0];
    if (!head) return { events: 0, enqueued: 0, cursor: -1, skipped: true };
    const last = Number(head.last);
    const now = head.now;
    const { rows: rules } = await client.query<RuleRow>(
      `select id, kind, agent, reason, older_than_minutes, silent_for_seconds, threshold, enabled, created_at, destination
       from alert_rules where enabled`,
    );
    const kinds = [...KIND_OF_ENTRY.keys()];
    const { rows: fresh } = await client.query<EntryRow>({
      name: "alerts_read_new_entries",
      text: `select e.id::text, e.kind, e.at, e.task_id, e.data, t.agent
             from ledger_entries e left join tasks t on t.id = e.task_id
             where e.kind = any($1) and e.id > $2
             order by e.id limit $3`,
      values: [kinds, last, batch],
    });
    const { rows: recent } =
      rules.length === 0
        ? { rows: [] as EntryRow[] }
        : await client.query<EntryRow>({
            name: "alerts_read_recent_entries",
            text: `select e.id::text, e.kind, e.at, e.task_id, e.data, t.agent
                   from ledger_entries e left join tasks t on t.id = e.task_id
                   where e.kind = any($1) and e.id <= $2 and e.at > $3::timestamptz - $4 * interval '1 millisecond'`,
            values: [kinds, last, now, lookbackMs],
          });
    const events: AlertEvent[] = [...recent, ...fresh].flatMap((e) => {
      const kind = KIND_OF_ENTRY.get(e.kind);
      if (!kind) return [];
      const reasonValue = kind === "dead_letter" ? e.data?.reason : e.data?.action;
      const reason = typeof reasonValue === "string" ? reasonValue : null;
      // An unknown outcome the runtime settles itself (reconcile, provider-idempotent resend)
      // needs nobody; alert only when it is left for a person.
      if (kind === "outcome_unknown" && reason !== "dead-letter") return [];
      const event = { kind, at: e.at, taskId: e.task_id, agent: e.agent, reason };
      return [{ ...event, id: `ledger:${e.id}`, summary: describeEvent(event) }];
    });
    if (rules.some((r) => r.kind === "approval_waiting")) {
      const { rows: waiting } = await client.query<{
        id: string;
        task_id: string;
        requested_at: Date;
        agent: string;
      }>({
        name: "alerts_read_waiting_approvals",
        text: `select a.id::text, a.task_id, a.requested_at, t.agent
               from approvals a join tasks t on t.id = a.task_id
               where a.status = 'pending' and t.status = 'awaiting_approval'`,
      });
      for (const a of waiting) {
        const event = {
          kind: "approval_waiting" as const,
          at: a.requested_at,
          taskId: a.task_id,
          agent: a.agent,
          reason: null,
        };
        events.push({ ...event, id: `approval:${a.id}`, summary: describeEvent(event) });
      }
    }
    if (rules.some((r) => r.kind === "no_live_worker")) {
      // The newest sighting of any fleet worker, stopped or not: an outage is "nobody seen
      // since then", so its id stays the same for as long as it lasts and the next outage,
      // after some worker was seen again, has a new one. The web server's delivery worker
      // (role alerts) is not the fleet: it runs no agent but alert-delivery.
      const { rows: seen } = await client.query<{ newest: Date | null }>({
        name: "alerts_read_worker_presence",
        text: `select max(last_seen_at) as newest from workers where role = 'worker'`,
      });
      const newest = seen[0]?.newest ?? null;
      const event = {
        kind: "no_live_worker" as const,
        at: newest ?? new Date(0),
        taskId: null,
        agent: null,
        reason: null,
      };
      events.push({
        ...event,
        id: `no_live_worker:${newest ? newest.getTime() : "never"}`,
        summary: describeEvent(event),
      });
    }
    events.push(...(await spendEvents(client, rules, now)));
    let enqueued = 0;
    for (const rule of rules) {
      const filter: AlertRuleFilter = {
        id: rule.id,
        kind: rule.kind,
        agent: rule.agent,
        reason: rule.reason,
        olderThanMinutes: rule.older_than_minutes,
        silentForSeconds: rule.silent_for_seconds,
        threshold: rule.threshold,
        enabled: rule.enabled,
        createdAt: rule.created_at,
      };
      for (const event of events) {
        if (!matchesRule(filter, event, now)) continue;
        const result = await enqueueTask(client, operator(ALERTS_ACTOR), {
          agent: ALERT_DELIVERY_AGENT,
          input: {
            ruleId: rule.id,
            destination: rule.destination,
            event: { ...event, at: event.at.toISOString() },
          },
          key: alertEnqueueKey(rule.id, event.id),
          // The delivery worker may start after the evaluator: its task waits for it.
          unpublished: "enqueue",
        });
        // Our own input refused by our own agent's schema is a bug: fail the pass, loudly.
        if (!result.ok) throw new Error(`alert for rule ${rule.id}: ${result.message}`);
        if (result.value.created) enqueued++;
      }
    }
    const next = fresh.length > 0 ? Number(fresh[fresh.length - 1]?.id ?? last) : last;
    await client.query(
      "update alert_cursors set last_entry_id = $2, updated_at = now() where name = $1",
      [cursorName, next],
    );
    return { events: events.length, enqueued, cursor: next };
  });
}

/**
 * The spend kinds' events: one per agent and one for all agents (agent null), with the amount;
 * each rule compares it with its own threshold. Ids name the UTC day (spend_day_over) or the
 * clock hour of the pass (spend_rate_over), so the enqueue key lets a rule fire at most once a
 * day, or once an hour, however many passes see the spend over it. Today's spend is the
 * spend_daily counters; the last hour's is the model.called entries of that hour, found by
 * ledger_entries_kind_at_idx (kind, at): the counters are per day, not per hour.
 */
async function spendEvents(
  client: pg.PoolClient,
  rules: readonly RuleRow[],
  now: Date,
): Promise<AlertEvent[]> {
  const events: AlertEvent[] = [];
  const read = async (kind: "spend_day_over" | "spend_rate_over", text: string, window: string) => {
    if (!rules.some((r) => r.kind === kind)) return;
    const { rows } = await client.query<{ agent: string | null; spent: number | null }>({
      name: `alerts_read_${kind}`,
      text,
    });
    for (const r of rows) {
      const event = {
        kind,
        at: now,
        taskId: null,
        agent: r.agent,
        reason: null,
        amount: r.spent ?? 0,
      };
      events.push({
        ...event,
        id: `${kind}:${window}:${r.agent ?? "*"}`,
        summary: describeEvent(event),
      });
    }
  };
  await read(
    "spend_day_over",
    `select agent, sum(cost)::float8 as spent from spend_daily
     where day = (now() at time zone 'UTC')::date group by grouping sets ((agent), ())`,
    now.toISOString().slice(0, 10),
  );
  await read(
    "spend_rate_over",
    `select t.agent, sum((e.data->>'cost')::float8)::float8 as spent
     from ledger_entries e join tasks t on t.id = e.task_id
     where e.kind = 'model.called' and e.at > now() - interval '1 hour'
     group by grouping sets ((t.agent), ())`,
    now.toISOString().slice(0, 13),
  );
  return events;
}
