// A bulk action's progress and per-task outcomes, for the dead-letter screen after confirming
// (live through GET /api/screens/dead-letters-bulk), for the second reviewer who confirms, and
// for its own page with the entries of its own ledger stream.
import { asc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { bulkActionMembers, bulkActions, ledgerEntries } from "../../../db/schema";
import { principalOf, requireScope, type Viewer } from "../../domain/access";
import {
  type BulkAction,
  type BulkStatus,
  type MemberOutcome,
  withdrawRefusal,
} from "../../domain/bulk-actions";
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
  createdAt: string;
  finishedAt: string | null;
  /** Who withdrew it (or the runner that stopped it) and why, once withdrawn or stopped. */
  endedBy: string | null;
  endReason: string | null;
  /** The viewer may withdraw it now (withdrawRefusal: its requester, or an admin, while it waits). */
  mayWithdraw: boolean;
  counts: Record<MemberOutcome | "pending", number>;
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
  const [bulk] = await db.select().from(bulkActions).where(sql`${bulkActions.id} = ${bulkId}`);
  if (!bulk) return null;
  const members = await db
    .select({
      taskId: bulkActionMembers.taskId,
      position: bulkActionMembers.position,
      outcome: bulkActionMembers.outcome,
      detail: bulkActionMembers.detail,
      taskStatus: bulkActionMembers.taskStatus,
    })
    .from(bulkActionMembers)
    .where(sql`${bulkActionMembers.bulkId} = ${bulkId}`)
    .orderBy(bulkActionMembers.position)
    .limit(BULK_MEMBERS_SHOWN);
  const tally = await db.execute<{ outcome: MemberOutcome | null; n: number }>(sql`
    select ${bulkActionMembers.outcome} as outcome, count(*)::int as n from ${bulkActionMembers}
    where ${bulkActionMembers.bulkId} = ${bulkId} group by 1`);
  const counts: BulkActionDto["counts"] = {
    pending: 0,
    done: 0,
    waiting: 0,
    taken: 0,
    refused: 0,
    failed: 0,
    skipped: 0,
  };
  for (const r of tally.rows) counts[r.outcome ?? "pending"] = r.n;
  const parsed = paramsSchema.safeParse(bulk.params);
  const params = parsed.success ? parsed.data : {};
  return {
    id: bulk.id,
    action: bulk.action,
    params,
    status: bulk.status,
    twoPerson: bulk.twoPerson,
    memberCount: bulk.memberCount,
    requestedBy: bulk.requestedBy,
    confirmedBy: bulk.confirmedBy,
    createdAt: bulk.createdAt.toISOString(),
    finishedAt: bulk.finishedAt?.toISOString() ?? null,
    endedBy: bulk.endedBy,
    endReason: bulk.endReason,
    mayWithdraw: withdrawRefusal(bulk, principal) === null,
    counts,
    members,
  };
}

export type BulkActionSummaryDto = Omit<
  BulkActionDto,
  "members" | "counts" | "params" | "endedBy" | "endReason" | "mayWithdraw"
>;

/** Bulk actions waiting for a second reviewer, oldest first (what a second reviewer confirms). */
export async function listPendingBulkActions(
  db: DbReader,
  viewer: Viewer | null,
): Promise<BulkActionSummaryDto[]> {
  requireScope(viewer, "tasks:read");
  const rows = await db
    .select()
    .from(bulkActions)
    .where(sql`${bulkActions.status} = 'awaiting_second'`)
    .orderBy(bulkActions.createdAt)
    .limit(20);
  return rows.map((b) => ({
    id: b.id,
    action: b.action,
    status: b.status,
    twoPerson: b.twoPerson,
    memberCount: b.memberCount,
    requestedBy: b.requestedBy,
    confirmedBy: b.confirmedBy,
    createdAt: b.createdAt.toISOString(),
    finishedAt: b.finishedAt?.toISOString() ?? null,
  }));
}

/** Entries of a bulk's own stream a page shows at once: requested, confirmed, the first outcomes. */
export const BULK_ENTRIES_SHOWN = 100;

/**
 * The bulk action's own ledger stream, oldest first (`bulk.requested` with its members, then
 * `bulk.confirmed`, each `bulk.member_finished`, and `bulk.finished`, `.withdrawn` or `.stopped`),
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
