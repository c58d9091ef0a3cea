// Counts for the overview and the metrics scrape that stay cheap at millions of rows. Tasks and
// effects per status and ledger entries per kind are counters the writing transactions keep
// (status_counts, ledger_kind_counts: migrations 0022 and 0031), so they are exact in the
// reader's snapshot and cost a few rows however large the tables grow. Only the number of
// streams of a large ledger is the planner's estimate, flagged `approximate`, which the screens
// word as "about".
import type { SqlClient } from "../../../db/client";
import { ALERT_DELIVERY_AGENT } from "../../domain/alerts";
import {
  DEAD_REASONS,
  type DeadReason,
  EFFECT_STATUSES,
  type EffectStatus,
  TASK_STATUSES,
  type TaskStatus,
} from "../../domain/task-states";

/** Below this many rows (by the planner's estimate) a table is counted exactly. */
export const EXACT_COUNT_BELOW = 100_000;

export type Counted = { count: number; approximate: boolean };

const exact = (count: number): Counted => ({ count, approximate: false });

/** The sums of status_counts for one table: per status, and per dead_reason for dead tasks. */
async function statusCounts(
  client: SqlClient,
  table: "tasks" | "effects",
): Promise<{ status: string; reason: string; n: number }[]> {
  const { rows } = await client.query<{ status: string; reason: string; n: number }>(
    `select status, reason, sum(rows)::float8 as n from status_counts
      where table_name = $1 group by status, reason`,
    [table],
  );
  return rows;
}

export type TaskCounts = {
  byStatus: Record<TaskStatus, Counted>;
  deadByReason: Record<DeadReason, number>;
  total: Counted;
};

export async function countTasks(client: SqlClient): Promise<TaskCounts> {
  const byStatus = Object.fromEntries(TASK_STATUSES.map((s) => [s, exact(0)])) as Record<
    TaskStatus,
    Counted
  >;
  const deadByReason = Object.fromEntries(DEAD_REASONS.map((r) => [r, 0])) as Record<
    DeadReason,
    number
  >;
  let total = 0;
  for (const row of await statusCounts(client, "tasks")) {
    const status = row.status as TaskStatus;
    if (byStatus[status]) byStatus[status] = exact(byStatus[status].count + row.n);
    if (status === "dead" && row.reason in deadByReason)
      deadByReason[row.reason as DeadReason] += row.n;
    total += row.n;
  }
  return { byStatus, deadByReason, total: exact(total) };
}

/**
 * The product's own dead tasks (alert deliveries) per reason: the counters know statuses and
 * reasons, not agents, so the screens that count the agents' dead letters take these out. Read
 * from tasks_dead_agent_idx: one alert per event, so few even in an outage.
 */
export async function countSystemDead(client: SqlClient): Promise<Record<DeadReason, number>> {
  const out = Object.fromEntries(DEAD_REASONS.map((r) => [r, 0])) as Record<DeadReason, number>;
  const { rows } = await client.query<{ reason: string; n: number }>(
    `select dead_reason as reason, count(*)::int as n from tasks
      where status = 'dead' and agent = $1 group by 1`,
    [ALERT_DELIVERY_AGENT],
  );
  for (const r of rows) if (r.reason in out) out[r.reason as DeadReason] += r.n;
  return out;
}

export type EffectCounts = {
  byStatus: Record<EffectStatus, Counted>;
  /** `started` effects whose lease ran out (effects_started_lease_idx holds them all). */
  outcomeUnknown: number;
};

export async function countEffects(client: SqlClient): Promise<EffectCounts> {
  const byStatus = Object.fromEntries(EFFECT_STATUSES.map((s) => [s, exact(0)])) as Record<
    EffectStatus,
    Counted
  >;
  for (const row of await statusCounts(client, "effects")) {
    const status = row.status as EffectStatus;
    if (byStatus[status]) byStatus[status] = exact(byStatus[status].count + row.n);
  }
  // Same rule as the runtime: a started effect without a live lease has an unknown outcome.
  // Time decides it, so no counter can: the partial index bounds it to the started effects.
  const unknown = await client.query<{ n: number }>(
    `select count(*)::int as n from effects
      where status = 'started' and not coalesce(lease_expires_at > now(), false)`,
  );
  return { byStatus, outcomeUnknown: unknown.rows[0]?.n ?? 0 };
}

export type LedgerCounts = {
  entries: Counted;
  streams: Counted;
  /** The newest entry's time (by id: the primary key answers it), or null for an empty ledger. */
  latestAt: Date | null;
};

export async function countLedger(client: SqlClient): Promise<LedgerCounts> {
  // One round trip: the newest entry by the primary key, the entries by the kind counters, and
  // the planner's estimate of the streams, which keep no counter (one is made per task).
  const { rows } = await client.query<{
    latest_at: Date | null;
    entries: number;
    streams_estimate: number | null;
  }>(
    `select (select at from ledger_entries order by id desc limit 1) as latest_at,
            (select coalesce(sum(entries), 0)::float8 from ledger_kind_counts) as entries,
            (select reltuples::float8 from pg_class
              where oid = to_regclass('ledger_streams')) as streams_estimate`,
  );
  const row = rows[0];
  const estimated = row?.streams_estimate ?? -1;
  // Past EXACT_COUNT_BELOW by the statistics, the estimate stands in for a count of every stream.
  const streams =
    estimated >= EXACT_COUNT_BELOW
      ? { count: Math.round(estimated), approximate: true }
      : exact(
          (await client.query<{ n: number }>("select count(*)::int as n from ledger_streams"))
            .rows[0]?.n ?? 0,
        );
  return { entries: exact(row?.entries ?? 0), streams, latestAt: row?.latest_at ?? null };
}
