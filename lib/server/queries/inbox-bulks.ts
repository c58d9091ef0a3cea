// The inbox's money bulk actions waiting for a second reviewer: who may confirm one, and each
// waiting bulk with the amounts its preview recorded when it froze (as the bulk's page shows).
import type pg from "pg";
import type { Principal } from "../../domain/access";
import { BULK_TASK_ACTION, type BulkAction } from "../../domain/bulk-actions";
import type { BulkPreview } from "../../domain/bulk-preview";
import type { MoneyTotals } from "../../domain/money";
import { refusalOf } from "../../domain/task-actions";
import { bulkStream } from "../ledger/append-ledger";
import { recordedPreview } from "./get-bulk-action-review";

export type InboxBulkDto = {
  id: string;
  action: BulkAction;
  memberCount: number;
  requestedBy: string;
  /** ISO 8601, UTC. */
  createdAt: string;
  /** The viewer froze it: someone else confirms it, or they withdraw it. */
  mine: boolean;
  /** The viewer may confirm it: not theirs, and the table lets them take its per-task action. */
  needsYou: boolean;
  /**
   * The money its effects would move, summed per currency, from the preview recorded when it
   * froze (as its page shows them); null when it moves none or recorded no preview.
   */
  amounts: MoneyTotals | null;
};

/** A different reviewer who may take the bulk's per-task action on a dead task confirms it. */
export function mayConfirmBulk(
  action: BulkAction,
  requestedBy: string,
  principal: Principal,
): boolean {
  return (
    requestedBy !== principal.actor &&
    refusalOf(BULK_TASK_ACTION[action], "dead", principal) === null
  );
}

type BulkRow = {
  id: string;
  action: BulkAction;
  member_count: number;
  requested_by: string;
  created_at: Date;
};

/** The waiting bulks, each with the amounts of the preview its `bulk.requested` entry recorded. */
export async function readPendingBulks(
  client: pg.PoolClient,
  principal: Principal,
  limit: number,
): Promise<InboxBulkDto[]> {
  const { rows } = await client.query<BulkRow>(
    `select id, action, member_count, requested_by, created_at from bulk_actions
     where status = 'awaiting_second' order by created_at, id limit $1`,
    [limit],
  );
  if (rows.length === 0) return [];
  const requested = await client.query<{ stream: string; preview: unknown }>(
    `select stream, data -> 'preview' as preview from ledger_entries
     where stream = any($1::text[]) and kind = 'bulk.requested'`,
    [rows.map((b) => bulkStream(b.id))],
  );
  const previews = new Map(requested.rows.map((r) => [r.stream, recordedPreview(r.preview)]));
  return rows.map((b) => bulkDto(b, principal, previews.get(bulkStream(b.id)) ?? null));
}

function bulkDto(b: BulkRow, principal: Principal, preview: BulkPreview | null): InboxBulkDto {
  const money = preview?.amounts;
  return {
    id: b.id,
    action: b.action,
    memberCount: b.member_count,
    requestedBy: b.requested_by,
    createdAt: b.created_at.toISOString(),
    mine: b.requested_by === principal.actor,
    needsYou: mayConfirmBulk(b.action, b.requested_by, principal),
    amounts: money && (money.totals.length > 0 || money.unknown > 0) ? money : null,
  };
}
