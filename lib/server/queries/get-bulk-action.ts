// A bulk action's progress and per-task outcomes, for the dead-letter screen after confirming
// (live through GET /api/screens/dead-letters-bulk), for the second reviewer who confirms, and
// for its own page with the entries of its own ledger stream.
import { asc, eq, inArray, lte, sql } from "drizzle-orm";
import { z } from "zod";
import {
  type BulkActionRow,
  bulkActionMembers,
  bulkActions,
  ledgerEntries,
} from "../../../db/schema";
import { type Principal, principalOf, requireScope, type Viewer } from "../../domain/access";
import {
  type BulkAction,
  type BulkStatus,
  confirmRefusal,
  type MemberOutcome,
  withdrawRefusal,
} from "../../domain/bulk-actions";
import { type BulkCounts, pendingCounts } from "../../domain/bulk-counts";
import { bulkStream } from "../ledger/append-ledger";
import type { DbReader } from "./db-reader";
import { TIMELINE_COLUMNS, type TimelineEntryDto, timelineEntry } from "./list-task-timeline";
import { seesPayloads } from "./payloads";

/** Members listed with their outcome; the counts always cover all of them. */
export const BULK_MEMBERS_SHOWN = 1000;

export type BulkMemberDto = {
  taskId: string;
  position: number;
  outcome: MemberOutcome | null;
  detail: string | null;
  taskStatus: string | null;
};

export type BulkActionDto = {
  id: string;
  action: BulkAction;
  params: { reason?: string; stepName?: string | null };
  status: BulkStatus;
  twoPerson: boolean;
  memberCount: number;
  requestedBy: string;
  confirmedBy: string | null;
  /** When it was frozen (requested), and the db-clock instant its set was read as of. */
  createdAt: string;
  asOf: string;
  confirmedAt: string | null;
  finishedAt: string | null;
  /** Who withdrew, declined (or the runner that stopped it) and why, once it ended so. */
  endedBy: string | null;
  endReason: string | null;
  /** The viewer may withdraw it now (withdrawRefusal: its requester, or an admin, while it waits). */
  mayWithdraw: boolean;
  /** The viewer may confirm or decline it now (confirmRefusal: a different reviewer, while it waits). */
  mayConfirm: boolean;
  counts: BulkCounts;
  members: BulkMemberDto[];
};

const paramsSchema = z.object({
  reason: z.string().optional(),
  stepName: z.string().nullable().optional(),
});

export async function getBulkAction(
  db: DbReader,
  viewer: Viewer | null,
  bulkId: string,
): Promise<BulkActionDto | null> {
  const principal = principalOf(requireScope(viewer, "tasks:read"));
  const rows = await db.select().from(bulkActions).where(eq(bulkActions.id, bulkId));
  const [dto] = await bulkActionDtos(db, principal, rows);
  return dto ?? null;
}

/** How many bulk actions waiting for a second reviewer a screen lists. */
export const PENDING_BULKS_SHOWN = 20;

/**
 * Bulk actions waiting for a second reviewer, oldest first (what a second reviewer confirms),
 * each as getBulkAction reads it. Three statements however many are waiting: the dead-letter
 * screen read each one on its own, 61 round trips on every render when 20 waited.
 */
export async function listPendingBulkActions(
  db: DbReader,
  viewer: Viewer | null,
): Promise<BulkActionDto[]> {
  const principal = principalOf(requireScope(viewer, "tasks:read"));
  const rows = await db
    .select()
    .from(bulkActions)
    .where(sql`${bulkActions.status} = 'awaiting_second'`)
    .orderBy(bulkActions.createdAt, bulkActions.id)
    .limit(PENDING_BULKS_SHOWN);
  return bulkActionDtos(db, principal, rows);
}

/** The DTOs of `rows`, in their order: their first members and their tallies, read for all at once. */
async function bulkActionDtos(
  db: DbReader,
  principal: Principal,
  rows: BulkActionRow[],
): Promise<BulkActionDto[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((b) => b.id);
  // Each bulk's first BULK_MEMBERS_SHOWN by position: a limit per bulk, not over them all.
  const ranked = db
    .select({
      bulkId: bulkActionMembers.bulkId,
      taskId: bulkActionMembers.taskId,
      position: bulkActionMembers.position,
      outcome: bulkActionMembers.outcome,
      detail: bulkActionMembers.detail,
      taskStatus: bulkActionMembers.taskStatus,
      rank: sql<number>`row_number() over (partition by ${bulkActionMembers.bulkId} order by ${bulkActionMembers.position})`.as(
        "rank",
      ),
    })
    .from(bulkActionMembers)
    .where(inArray(bulkActionMembers.bulkId, ids))
    .as("ranked");
  const memberRows = await db
    .select()
    .from(ranked)
    .where(lte(ranked.rank, BULK_MEMBERS_SHOWN))
    .orderBy(ranked.bulkId, ranked.position);
  const tally = await db
    .select({
      bulkId: bulkActionMembers.bulkId,
      outcome: bulkActionMembers.outcome,
      n: sql<number>`count(*)::int`,
    })
    .from(bulkActionMembers)
    .where(inArray(bulkActionMembers.bulkId, ids))
    .groupBy(bulkActionMembers.bulkId, bulkActionMembers.outcome);

  const members = new Map<string, BulkMemberDto[]>(ids.map((id) => [id, []]));
  for (const { bulkId, rank: _rank, ...m } of memberRows) members.get(bulkId)?.push(m);
  const counts = new Map(ids.map((id) => [id, pendingCounts(0)]));
  for (const r of tally) {
    const c = counts.get(r.bulkId);
    if (c) c[r.outcome ?? "pending"] = r.n;
  }
  return rows.map((bulk) => {
    const parsed = paramsSchema.safeParse(bulk.params);
    return {
      id: bulk.id,
      action: bulk.action,
      params: parsed.success ? parsed.data : {},
      status: bulk.status,
      twoPerson: bulk.twoPerson,
      memberCount: bulk.memberCount,
      requestedBy: bulk.requestedBy,
      confirmedBy: bulk.confirmedBy,
      createdAt: bulk.createdAt.toISOString(),
      asOf: bulk.asOf.toISOString(),
      confirmedAt: bulk.confirmedAt?.toISOString() ?? null,
      finishedAt: bulk.finishedAt?.toISOString() ?? null,
      endedBy: bulk.endedBy,
      endReason: bulk.endReason,
      mayWithdraw: withdrawRefusal(bulk, principal) === null,
      mayConfirm: confirmRefusal(bulk, principal) === null,
      counts: counts.get(bulk.id) ?? pendingCounts(0),
      members: members.get(bulk.id) ?? [],
    };
  });
}

/** Entries of a bulk's own stream a page shows at once: requested, confirmed, the first outcomes. */
export const BULK_ENTRIES_SHOWN = 100;

/**
 * The bulk action's own ledger stream, oldest first (`bulk.requested` with its members, then
 * `bulk.confirmed`, each `bulk.member_finished`, and `bulk.finished`, `.withdrawn`, `.declined`
 * or `.stopped`),
 * the first BULK_ENTRIES_SHOWN of them and how many there are.
 */
export async function listBulkEntries(
  db: DbReader,
  viewer: Viewer | null,
  bulkId: string,
): Promise<{ entries: TimelineEntryDto[]; total: number; payloadsHidden: boolean }> {
  const visible = seesPayloads(requireScope(viewer, "ledger:read"));
  const stream = bulkStream(bulkId);
  const rows = await db
    .select(TIMELINE_COLUMNS)
    .from(ledgerEntries)
    .where(eq(ledgerEntries.stream, stream))
    .orderBy(asc(ledgerEntries.seq))
    .limit(BULK_ENTRIES_SHOWN);
  const head = await db.execute<{ n: number }>(
    sql`select head_seq::int as n from ledger_streams where stream = ${stream}`,
  );
  return {
    entries: rows.map((e) => timelineEntry(e, visible, null)),
    total: head.rows[0]?.n ?? rows.length,
    payloadsHidden: !visible,
  };
}
