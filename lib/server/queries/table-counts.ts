// Counts for the overview and the metrics scrape that stay cheap at millions of rows. A small
// table is counted exactly. A large one is not scanned: what a person acts on (dead letters,
// in-flight effects, work in progress) is counted through the partial or leading index that
// bounds it, and the rest (succeeded tasks, settled effects, ledger entries) is estimated from
// the planner's statistics and flagged `approximate`, which the screens word as "about".
import type { SqlClient } from "../../../db/client";
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

type TableStats = {
  /** pg_class.reltuples; null when the table was never vacuumed or analyzed. */
  rows: number | null;
  /** pg_stats most common values of `status` and their frequencies. */
  statusFreqs: Map<string, number>;
};

/** Exact when the planner's statistics say the table is small or do not know. */
function isSmall(stats: TableStats): boolean {
  return stats.rows === null || stats.rows < EXACT_COUNT_BELOW;
}

async function tableStats(client: SqlClient, table: string): Promise<TableStats> {
  // pg_stats shows only tables the role may read; most_common_vals is anyarray, hence the casts.
  const { rows } = await client.query<{
    reltuples: number;
    vals: string[] | null;
    freqs: number[] | null;
  }>(
    `select c.reltuples::float8 as reltuples,
            s.most_common_vals::text::text[] as vals, s.most_common_freqs::float8[] as freqs
       from pg_class c
       left join pg_stats s on s.schemaname = current_schema() and s.tablename = c.relname and s.attname = 'status'
      where c.oid = to_regclass($1)`,
    [table],
  );
  const row = rows[0];
  const statusFreqs = new Map<string, number>();
  (row?.vals ?? []).forEach((v, i) => {
    statusFreqs.set(v, row?.freqs?.[i] ?? 0);
  });
  return { rows: row && row.reltuples >= 0 ? row.reltuples : null, statusFreqs };
}

function estimate(stats: TableStats, status: string): number {
  return Math.round((stats.rows ?? 0) * (stats.statusFreqs.get(status) ?? 0));
}

/** One exact count per status, each its own index range scan (see metrics' kind counts). */
async function exactByStatus(
  client: SqlClient,
  table: "tasks" | "effects",
  statuses: readonly string[],
): Promise<Map<string, number>> {
  if (statuses.length === 0) return new Map();
  const { rows } = await client.query<{ status: string; n: number }>(
    `select s.status, c.n from unnest($1::text[]) as s(status)
      cross join lateral (select count(*)::int as n from ${table} t where t.status = s.status) c`,
    [statuses],
  );
  return new Map(rows.map((r) => [r.status, r.n]));
}

export type TaskCounts = {
  byStatus: Record<TaskStatus, Counted>;
  /** Exact: tasks_dead_idx holds exactly the dead rows. */
  deadByReason: Record<DeadReason, number>;
  total: Counted;
};

export async function countTasks(client: SqlClient): Promise<TaskCounts> {
  const stats = await tableStats(client, "tasks");
  const deadRows = await client.query<{ reason: DeadReason; n: number }>(
    "select dead_reason as reason, count(*)::int as n from tasks where status = 'dead' group by dead_reason",
  );
  const deadByReason = Object.fromEntries(DEAD_REASONS.map((r) => [r, 0])) as Record<
    DeadReason,
    number
  >;
  for (const row of deadRows.rows) deadByReason[row.reason] += row.n;
  const deadTotal = Object.values(deadByReason).reduce((a, b) => a + b, 0);

  // Work in progress is what a person looks at and is bounded by the queue; a status whose
  // rows the statistics put in the hundreds of thousands (succeeded, mostly) is estimated.
  const small = isSmall(stats);
  const others = TASK_STATUSES.filter((s) => s !== "dead");
  const exact = small ? others : others.filter((s) => estimate(stats, s) < EXACT_COUNT_BELOW);
  const counted = await exactByStatus(client, "tasks", exact);
  const byStatus = {} as Record<TaskStatus, Counted>;
  for (const status of TASK_STATUSES) {
    if (status === "dead") byStatus[status] = { count: deadTotal, approximate: false };
    else if (counted.has(status))
      byStatus[status] = { count: counted.get(status) ?? 0, approximate: false };
    else byStatus[status] = { count: estimate(stats, status), approximate: true };
  }
  const values = Object.values(byStatus);
  return {
    byStatus,
    deadByReason,
    total: {
      count: values.reduce((sum, c) => sum + c.count, 0),
      approximate: values.some((c) => c.approximate),
    },
  };
}

export type EffectCounts = {
  byStatus: Record<EffectStatus, Counted>;
  /** Exact: `started` effects whose lease ran out (effects_started_lease_idx holds them all). */
  outcomeUnknown: number;
};

export async function countEffects(client: SqlClient): Promise<EffectCounts> {
  const stats = await tableStats(client, "effects");
  const small = isSmall(stats);
  const exact = small
    ? EFFECT_STATUSES
    : EFFECT_STATUSES.filter((s) => s === "started" || estimate(stats, s) < EXACT_COUNT_BELOW);
  const counted = await exactByStatus(client, "effects", exact);
  // Same rule as the runtime: a started effect without a live lease has an unknown outcome.
  const unknown = await client.query<{ n: number }>(
    `select count(*)::int as n from effects
      where status = 'started' and not coalesce(lease_expires_at > now(), false)`,
  );
  const byStatus = {} as Record<EffectStatus, Counted>;
  for (const status of EFFECT_STATUSES) {
    byStatus[status] = counted.has(status)
      ? { count: counted.get(status) ?? 0, approximate: false }
      : { count: estimate(stats, status), approximate: true };
  }
  return { byStatus, outcomeUnknown: unknown.rows[0]?.n ?? 0 };
}

export type LedgerCounts = {
  entries: Counted;
  streams: Counted;
  /** The newest entry's time (by id: the primary key answers it), or null for an empty ledger. */
  latestAt: Date | null;
};

export async function countLedger(client: SqlClient): Promise<LedgerCounts> {
  const entryStats = await tableStats(client, "ledger_entries");
  const streamStats = await tableStats(client, "ledger_streams");
  const newest = await client.query<{ id: number; at: Date }>(
    "select id, at from ledger_entries order by id desc limit 1",
  );
  // A large ledger is counted by its newest id: ids are an identity that only grows and the
  // ledger rejects DELETE, so it overstates only by appends that rolled back (an upper bound
  // that never goes down, as a Prometheus counter must not).
  const entries = isSmall(entryStats)
    ? {
        count:
          (await client.query<{ n: number }>("select count(*)::int as n from ledger_entries"))
            .rows[0]?.n ?? 0,
        approximate: false,
      }
    : { count: newest.rows[0]?.id ?? 0, approximate: true };
  const streams = isSmall(streamStats)
    ? {
        count:
          (await client.query<{ n: number }>("select count(*)::int as n from ledger_streams"))
            .rows[0]?.n ?? 0,
        approximate: false,
      }
    : { count: Math.round(streamStats.rows ?? 0), approximate: true };
  return { entries, streams, latestAt: newest.rows[0]?.at ?? null };
}
