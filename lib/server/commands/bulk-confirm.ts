// The second reviewer of a money bulk action confirms the whole frozen set (the same members,
// nothing re-selected); then the runner acts on each task as the two of them — the per-task
// two-person rule sees the first reviewer's request and this reviewer's confirmation.
import type pg from "pg";
import { withTransaction } from "../../../db/client";
import type { Principal } from "../../domain/access";
import {
  BULK_TASK_ACTION,
  type BulkAction,
  type BulkStatus,
  confirmRefusal,
} from "../../domain/bulk-actions";
import { type CommandResult, conflict, notFound } from "../../domain/command-result";
import { refusalOf } from "../../domain/task-actions";
import { appendLedger, bulkStream } from "../ledger/append-ledger";
import { storePrincipal } from "./bulk-principal";

export type BulkConfirmed = { id: string; status: BulkStatus; confirmedBy: string };

export async function confirmBulkAction(
  pool: pg.Pool,
  principal: Principal,
  input: { bulkId: string },
): Promise<CommandResult<BulkConfirmed>> {
  return withTransaction(pool, async (client): Promise<CommandResult<BulkConfirmed>> => {
    const { rows } = await client.query<{
      action: BulkAction;
      status: BulkStatus;
      requested_by: string;
      confirmed_by: string | null;
      member_count: number;
      ended_by: string | null;
    }>(
      `select action, status, requested_by, confirmed_by, member_count, ended_by from bulk_actions
       where id = $1 for update`,
      [input.bulkId],
    );
    const bulk = rows[0];
    if (!bulk) return notFound(`no bulk action ${input.bulkId}`);
    const refusal = refusalOf(BULK_TASK_ACTION[bulk.action], "dead", principal);
    if (refusal) return refusal;
    if (bulk.status === "withdrawn") {
      return conflict(`${bulk.ended_by ?? "its requester"} withdrew this bulk action`);
    }
    if (bulk.status === "declined") {
      return conflict(`${bulk.ended_by ?? "another reviewer"} declined this bulk action`);
    }
    if (bulk.status !== "awaiting_second") {
      // A retried confirmation by the one who confirmed answers the same result.
      if (bulk.confirmed_by === principal.actor) {
        return {
          ok: true,
          value: { id: input.bulkId, status: bulk.status, confirmedBy: principal.actor },
        };
      }
      return conflict(
        bulk.confirmed_by
          ? `${bulk.confirmed_by} already confirmed this bulk action`
          : "this bulk action does not wait for a second reviewer",
      );
    }
    // Who may confirm it now: the same rule the page asks before offering the button.
    const refused = confirmRefusal(
      {
        action: bulk.action,
        status: bulk.status,
        requestedBy: bulk.requested_by,
        memberCount: bulk.member_count,
      },
      principal,
    );
    if (refused) return refused;
    await client.query(
      `update bulk_actions set status = 'running', confirmed_by = $2, confirmed_principal = $3,
         confirmed_at = now()
       where id = $1 and status = 'awaiting_second'`,
      [input.bulkId, principal.actor, JSON.stringify(storePrincipal(principal))],
    );
    await appendLedger(client, bulkStream(input.bulkId), {
      kind: "bulk.confirmed",
      actor: principal.actor,
      data: {
        bulkId: input.bulkId,
        action: bulk.action,
        requestedBy: bulk.requested_by,
        members: bulk.member_count,
      },
    });
    return {
      ok: true,
      value: { id: input.bulkId, status: "running", confirmedBy: principal.actor },
    };
  });
}
