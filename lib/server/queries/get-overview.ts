// The overview screen: counts, charts over a chosen window and the oldest item waiting for a
// person, read in one read-only snapshot so the numbers on the page agree with each other (a
// task moving to `dead` mid-read cannot be counted twice). Nothing here scans a table that
// grows with history: see table-counts.ts, get-overview-series.ts and get-oldest-waiting.ts.
import { drizzle } from "drizzle-orm/node-postgres";
import type pg from "pg";
import { z } from "zod";
import { withTransaction } from "../../../db/client";
import * as schema from "../../../db/schema";
import { can, requireScope, type Viewer } from "../../domain/access";
import {
  DEFAULT_OVERVIEW_WINDOW,
  OVERVIEW_WINDOWS,
  type OverviewWindowName,
  overviewWindow,
} from "../../domain/overview-window";
import {
  DEAD_REASONS,
  type DeadReason,
  EFFECT_STATUSES,
  type EffectStatus,
  TASK_STATUSES,
  type TaskStatus,
} from "../../domain/task-states";
import { readOldestWaiting, type WaitingDto } from "./get-oldest-waiting";
import { type OverviewSeriesDto, readOverviewSeries } from "./get-overview-series";
import type { LedgerEntryDto } from "./ledger-entry-dto";
import { listLedgerEntries } from "./list-ledger-entries";
import {
  type Counted,
  countEffects,
  countLedger,
  countSystemDead,
  countTasks,
} from "./table-counts";
import { liveWorkerSql } from "./worker-liveness";

export const OVERVIEW_LATEST_ENTRIES = 10;

/** The overview's address: `/?window=7d`. The API route parses the same. */
export const overviewSearchSchema = z.object({
  window: z
    .enum(OVERVIEW_WINDOWS, { error: `must be one of: ${OVERVIEW_WINDOWS.join(", ")}.` })
    .default(DEFAULT_OVERVIEW_WINDOW),
});
export type OverviewSearch = z.output<typeof overviewSearchSchema>;

export type OverviewDto = {
  /** Every status, in lifecycle order, zeros included; exact (the status counters). */
  tasksByStatus: ({ status: TaskStatus } & Counted)[];
  tasksTotal: Counted;
  /**
   * The agents' dead letters per reason, zeros included; exact. The product's own dead tasks
   * (alert deliveries) are not among them: they are `undeliveredAlerts`, as on the dead-letter
   * screen and in the inbox.
   */
  deadByReason: { reason: DeadReason; count: number }[];
  /** Dead alert deliveries (every destination). */
  undeliveredAlerts: number;
  effectsByStatus: ({ status: EffectStatus } & Counted)[];
  /** `started` effects whose lease ran out without a result: someone must find out what happened. */
  effectsOutcomeUnknown: number;
  ledger: { entries: Counted; streams: Counted; latestAt: string | null };
  /** Charts over the chosen window. */
  series: OverviewSeriesDto;
  /** The oldest item per kind of wait for a person. */
  waiting: WaitingDto[];
  /** Newest first; empty when the viewer may not read the ledger (`ledgerHidden`). */
  latestEntries: LedgerEntryDto[];
  /** The viewer lacks `ledger:read`; the counts above are still shown. */
  ledgerHidden: boolean;
  /**
   * Fleet workers seen within one lease (not stopped; the web server's alert worker apart),
   * and the newest sighting of any fleet worker.
   */
  workers: { live: number; lastSeenAt: string | null };
  /** The database clock when the snapshot was taken, ISO 8601. */
  asOf: string;
};

export async function getOverview(
  pool: pg.Pool,
  viewer: Viewer | null,
  opts: { leaseMs?: number; window?: OverviewWindowName } = {},
): Promise<OverviewDto> {
  const leaseMs = opts.leaseMs ?? 30_000;
  const reader = requireScope(viewer, "tasks:read");
  const readsLedger = can(reader, "ledger:read");
  return withTransaction(pool, async (client) => {
    await client.query("set transaction isolation level repeatable read, read only");
    const clock = await client.query<{ now: Date }>("select now() as now");
    const asOf = clock.rows[0]?.now ?? new Date();

    const taskCounts = await countTasks(client);
    const systemDead = await countSystemDead(client);
    const undeliveredAlerts = DEAD_REASONS.reduce((n, r) => n + systemDead[r], 0);
    const effectCounts = await countEffects(client);
    const ledger = await countLedger(client);
    const series = await readOverviewSeries(
      client,
      overviewWindow(opts.window ?? DEFAULT_OVERVIEW_WINDOW, asOf),
    );
    const waiting = await readOldestWaiting(client, {
      dead: taskCounts.byStatus.dead.count - undeliveredAlerts,
      outcomeUnknown: effectCounts.outcomeUnknown,
    });
    const fleet = await client.query<{ live: number; last_seen_at: Date | null }>({
      text: `select count(*) filter (where ${liveWorkerSql("$1")})::int as live,
                    max(last_seen_at) as last_seen_at
               from workers where role = 'worker'`,
      values: [leaseMs],
    });
    // The ledger listing is drizzle; on this client it reads the same snapshot.
    const latest = readsLedger
      ? (await listLedgerEntries(drizzle(client, { schema }), reader, {}, OVERVIEW_LATEST_ENTRIES))
          .entries
      : [];

    return {
      tasksByStatus: TASK_STATUSES.map((status) => ({ status, ...taskCounts.byStatus[status] })),
      tasksTotal: taskCounts.total,
      deadByReason: DEAD_REASONS.map((reason) => ({
        reason,
        count: taskCounts.deadByReason[reason] - systemDead[reason],
      })),
      undeliveredAlerts,
      effectsByStatus: EFFECT_STATUSES.map((status) => ({
        status,
        ...effectCounts.byStatus[status],
      })),
      effectsOutcomeUnknown: effectCounts.outcomeUnknown,
      ledger: {
        entries: ledger.entries,
        streams: ledger.streams,
        latestAt: ledger.latestAt?.toISOString() ?? null,
      },
      series,
      waiting,
      latestEntries: latest,
      ledgerHidden: !readsLedger,
      workers: {
        live: fleet.rows[0]?.live ?? 0,
        lastSeenAt: fleet.rows[0]?.last_seen_at?.toISOString() ?? null,
      },
      asOf: asOf.toISOString(),
    };
  });
}
