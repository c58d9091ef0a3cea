// Ends a bulk action before every member was acted on: withdrawn (its requester or an admin took
// it back while it waited for a second reviewer), declined (a second reviewer said no) or
// stopped (the runner found that a person it acts for may no longer do this). Members not yet
// run are marked skipped with the reason, and the bulk's own stream records it
// (`bulk.withdrawn`, `bulk.declined`, `bulk.stopped`) with the skipped tasks.
import type { SqlClient } from "../../../db/client";
import type { BulkAction, BulkStatus } from "../../domain/bulk-actions";
import { appendLedger, bulkStream } from "../ledger/append-ledger";

export type EndedBulk = {
  action: BulkAction;
  requestedBy: string;
  confirmedBy: string | null;
  /** The members this marked skipped, in the frozen set's order. */
  skipped: string[];
};

/**
 * Moves the bulk from `from` to `to` and skips its pending members, in the caller's transaction.
 * Null when the bulk was no longer `from` (someone else ended, confirmed or finished it first).
 * A member another runner loop holds right now (it is acting on it) is left to that loop, which
 * records its outcome itself; this never waits on it, so two loops stopping at once cannot
 * deadlock.
 */
export async function endBulk(
  client: SqlClient,
  input: {
    bulkId: string;
    from: BulkStatus;
    to: "withdrawn" | "declined" | "stopped";
    actor: string;
    reason: string;
    /** More for the ledger entry (whose rights lapsed, …). */
    data?: Record<string, unknown>;
  },
): Promise<EndedBulk | null> {
  const { rows } = await client.query<{
    action: BulkAction;
    requested_by: string;
    confirmed_by: string | null;
  }>(
    `update bulk_actions set status = $2, ended_by = $3, end_reason = $4, finished_at = now()
     where id = $1 and status = $5
     returning action, requested_by, confirmed_by`,
    [input.bulkId, input.to, input.actor, input.reason, input.from],
  );
  const bulk = rows[0];
  if (!bulk) return null;
  const skipped = await client.query<{ task_id: string; position: number }>(
    `with pending as (
       select task_id, position from bulk_action_members
       where bulk_id = $1 and status = 'pending'
       for update skip locked
     )
     update bulk_action_members m set status = 'finished', outcome = 'skipped', detail = $2,
       finished_at = now()
     from pending p where m.bulk_id = $1 and m.task_id = p.task_id
     returning m.task_id, p.position`,
    [input.bulkId, input.reason],
  );
  const taskIds = skipped.rows.sort((a, b) => a.position - b.position).map((r) => r.task_id);
  await appendLedger(client, bulkStream(input.bulkId), {
    kind: `bulk.${input.to}`,
    actor: input.actor,
    data: {
      bulkId: input.bulkId,
      action: bulk.action,
      requestedBy: bulk.requested_by,
      confirmedBy: bulk.confirmed_by,
      reason: input.reason,
      skipped: taskIds,
      ...input.data,
    },
  });
  return {
    action: bulk.action,
    requestedBy: bulk.requested_by,
    confirmedBy: bulk.confirmed_by,
    skipped: taskIds,
  };
}
