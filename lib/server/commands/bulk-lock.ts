// What a decision on a waiting bulk action (confirm, decline, withdraw) reads first: the bulk's
// row under its lock, so the decision and its write see the same state; and, for a retried
// decision that already ended it, how many members it skipped.
import type { SqlClient } from "../../../db/client";
import type { BulkAction, BulkStatus } from "../../domain/bulk-actions";

export type LockedBulk = {
  action: BulkAction;
  status: BulkStatus;
  requestedBy: string;
  confirmedBy: string | null;
  memberCount: number;
  endedBy: string | null;
};

/** The bulk's row, locked for the rest of the caller's transaction; undefined when none. */
export async function lockBulk(client: SqlClient, bulkId: string): Promise<LockedBulk | undefined> {
  const { rows } = await client.query<LockedBulk>(
    `select action, status, requested_by as "requestedBy", confirmed_by as "confirmedBy",
       member_count as "memberCount", ended_by as "endedBy"
     from bulk_actions where id = $1 for update`,
    [bulkId],
  );
  return rows[0];
}

/** How many of the bulk's members were skipped (what a withdrawal or decline answers). */
export async function skippedMembers(client: SqlClient, bulkId: string): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    "select count(*)::int as n from bulk_action_members where bulk_id = $1 and outcome = 'skipped'",
    [bulkId],
  );
  return rows[0]?.n ?? 0;
}
