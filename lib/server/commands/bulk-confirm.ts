// The second reviewer of a money bulk action confirms the whole frozen set (the same members,
// nothing re-selected); then the runner acts on each task as the two of them — the per-task
// two-person rule sees the first reviewer's request and this reviewer's confirmation.
import type pg from "pg";
import { withTransaction } from "../../../db/client";
import type { Principal } from "../../domain/access";
import { BULK_TASK_ACTION, type BulkStatus, confirmRefusal } from "../../domain/bulk-actions";
import { type CommandResult, conflict, notFound } from "../../domain/command-result";
import { refusalOf } from "../../domain/task-actions";
import { appendLedger, bulkStream } from "../ledger/append-ledger";
import { lockBulk } from "./bulk-lock";
import { storePrincipal } from "./bulk-principal";

export type BulkConfirmed = { id: string; status: BulkStatus; confirmedBy: string };

export async function confirmBulkAction(
  pool: pg.Pool,
  principal: Principal,
  input: { bulkId: string },
): Promise<CommandResult<BulkConfirmed>> {
  return withTransaction(pool, async (client): Promise<CommandResult<BulkConfirmed>> => {
    const bulk = await lockBulk(client, input.bulkId);
    if (!bulk) return notFound(`no bulk action ${input.bulkId}`);
    const refusal = refusalOf(BULK_TASK_ACTION[bulk.action], "dead", principal);
    if (refusal) return refusal;
    if (bulk.status === "withdrawn") {
      return conflict(`${bulk.endedBy ?? "its requester"} withdrew this bulk action`);
    }
    if (bulk.status === "declined") {
      return conflict(`${bulk.endedBy ?? "another reviewer"} declined this bulk action`);
    }
    if (bulk.status !== "awaiting_second") {
      // A retried confirmation by the one who confirmed answers the same result.
      if (bulk.confirmedBy === principal.actor) {
        return {
          ok: true,
          value: { id: input.bulkId, status: bulk.status, confirmedBy: principal.actor },
        };
      }
      return conflict(
        bulk.confirmedBy
          ? `${bulk.confirmedBy} already confirmed this bulk action`
          : "this bulk action does not wait for a second reviewer",
      );
    }
    // Who may confirm it now: the same rule the page asks before offering the button.
    const refused = confirmRefusal(bulk, principal);
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
        requestedBy: bulk.requestedBy,
        members: bulk.memberCount,
      },
    });
    return {
      ok: true,
      value: { id: input.bulkId, status: "running", confirmedBy: principal.actor },
    };
  });
}
