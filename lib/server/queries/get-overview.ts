// The overview screen: every count it shows, read in one read-only snapshot so the numbers on
// the page agree with each other (a task moving to `dead` mid-read cannot be counted twice).
import { count, max, sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { effects, ledgerEntries, ledgerStreams, tasks, workers } from "../../../db/schema";
import { can, requireScope, type Viewer } from "../../domain/access";
import {
  DEAD_REASONS,
  type DeadReason,
  EFFECT_STATUSES,
  type EffectStatus,
  TASK_STATUSES,
  type TaskStatus,
} from "../../domain/task-states";
import { type LedgerEntryDto, listLedgerEntries } from "./list-ledger-entries";

export const OVERVIEW_LATEST_ENTRIES = 10;

export type OverviewDto = {
  /** Every status, in lifecycle order, zeros included. */
  tasksByStatus: { status: TaskStatus; count: number }[];
  tasksTotal: number;
  /** Every dead-letter reason, zeros included. */
  deadByReason: { reason: DeadReason; count: number }[];
  effectsByStatus: { status: EffectStatus; count: number }[];
  /** `started` effects whose lease ran out without a result: someone must find out what happened. */
  effectsOutcomeUnknown: number;
  ledger: { entries: number; streams: number; latestAt: string | null };
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
  db: Db,
  viewer: Viewer | null,
  opts: { leaseMs?: number } = {},
): Promise<OverviewDto> {
  const leaseMs = opts.leaseMs ?? 30_000;
  const reader = requireScope(viewer, "tasks:read");
  const readsLedger = can(reader, "ledger:read");
  return db.transaction(
    async (tx) => {
      const taskRows = await tx
        .select({ status: tasks.status, deadReason: tasks.deadReason, count: count() })
        .from(tasks)
        .groupBy(tasks.status, tasks.deadReason);

      const effectRows = await tx
        .select({
          status: effects.status,
          count: count(),
          outcomeUnknown:
            sql<number>`count(*) filter (where ${effects.leaseExpiresAt} < now())`.mapWith(Number),
        })
        .from(effects)
        .groupBy(effects.status);

      const [totals] = await tx
        .select({
          entries: count(),
          latestAt: max(ledgerEntries.at),
          streams: sql<number>`(select count(*) from ${ledgerStreams})`.mapWith(Number),
          asOf: sql<Date>`now()`.mapWith(ledgerEntries.at),
        })
        .from(ledgerEntries);

      const [fleet] = await tx
        .select({
          live: sql<number>`count(*) filter (where ${workers.stoppedAt} is null and ${workers.lastSeenAt} > now() - ${leaseMs} * interval '1 millisecond')`.mapWith(
            Number,
          ),
          lastSeenAt: max(workers.lastSeenAt),
        })
        .from(workers)
        .where(sql`${workers.role} = 'worker'`);

      const latest = readsLedger
        ? (await listLedgerEntries(tx, reader, {}, OVERVIEW_LATEST_ENTRIES)).entries
        : [];

      const byStatus = new Map<string, number>();
      const byReason = new Map<string, number>();
      for (const row of taskRows) {
        byStatus.set(row.status, (byStatus.get(row.status) ?? 0) + row.count);
        if (row.deadReason)
          byReason.set(row.deadReason, (byReason.get(row.deadReason) ?? 0) + row.count);
      }
      const byEffect = new Map(effectRows.map((r) => [r.status, r.count]));
      const tasksByStatus = TASK_STATUSES.map((status) => ({
        status,
        count: byStatus.get(status) ?? 0,
      }));

      return {
        tasksByStatus,
        tasksTotal: tasksByStatus.reduce((sum, s) => sum + s.count, 0),
        deadByReason: DEAD_REASONS.map((reason) => ({ reason, count: byReason.get(reason) ?? 0 })),
        effectsByStatus: EFFECT_STATUSES.map((status) => ({
          status,
          count: byEffect.get(status) ?? 0,
        })),
        effectsOutcomeUnknown: effectRows.find((r) => r.status === "started")?.outcomeUnknown ?? 0,
        ledger: {
          entries: totals?.entries ?? 0,
          streams: totals?.streams ?? 0,
          latestAt: totals?.latestAt?.toISOString() ?? null,
        },
        latestEntries: latest,
        ledgerHidden: !readsLedger,
        workers: {
          live: fleet?.live ?? 0,
          lastSeenAt: fleet?.lastSeenAt?.toISOString() ?? null,
        },
        asOf: (totals?.asOf ?? new Date()).toISOString(),
      };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}
