// A money bulk action waits for a second reviewer as a whole; until one confirms, the reviewer
// who froze it (or an admin) may take it back, as a single task's pending request is withdrawn.
// Nothing was done to its tasks yet: every member is marked skipped and the bulk's stream
// records `bulk.withdrawn`. Who may is lib/domain/bulk-actions' withdrawRefusal.
import type pg from "pg";
import { withTransaction } from "../../../db/client";
import type { Principal } from "../../domain/access";
import { type BulkAction, type BulkStatus, withdrawRefusal } from "../../domain/bulk-actions";
import { type CommandResult, conflict, notFound } from "../../domain/command-result";
import { endBulk } from "./bulk-end";

export type BulkWithdrawn = {
  id: string;
  status: "withdrawn";
  withdrawnBy: string;
  skipped: number;
};

export async function withdrawBulkAction(
  pool: pg.Pool,
  principal: Principal,
  input: { bulkId: string; reason?: string },
): Promise<CommandResult<BulkWithdrawn>> {
  return withTransaction(pool, async (client): Promise<CommandResult<BulkWithdrawn>> => {
    const { rows } = await client.query<{
      action: BulkAction;
      status: BulkStatus;
      requested_by: string;
      confirmed_by: string | null;
      ended_by: string | null;
    }>(
      `select action, status, requested_by, confirmed_by, ended_by from bulk_actions
       where id = $1 for update`,
      [input.bulkId],
    );
    const bulk = rows[0];
    if (!bulk) return notFound(`no bulk action ${input.bulkId}`);
    // A retried withdrawal by the one who withdrew it answers the same result.
    if (bulk.status === "withdrawn" && bulk.ended_by === principal.actor) {
      const n = await client.query<{ n: number }>(
        "select count(*)::int as n from bulk_action_members where bulk_id = $1 and outcome = 'skipped'",
        [input.bulkId],
      );
      return {
        ok: true,
        value: {
          id: input.bulkId,
          status: "withdrawn",
          withdrawnBy: principal.actor,
          skipped: n.rows[0]?.n ?? 0,
        },
      };
    }
    if (bulk.status === "running" || bulk.status === "done") {
      return conflict(
        bulk.confirmed_by
          ? `${bulk.confirmed_by} already confirmed this bulk action: it can no longer be withdrawn`
          : "this bulk action did not wait for a second reviewer: it can no longer be withdrawn",
      );
    }
    const refusal = withdrawRefusal(
      { action: bulk.action, status: bulk.status, requestedBy: bulk.requested_by },
      principal,
    );
    if (refusal) return refusal;
    const why = input.reason?.trim();
    const reason = `withdrawn by ${principal.actor}${why ? `: ${why}` : ""}`;
    const ended = await endBulk(client, {
      bulkId: input.bulkId,
      from: "awaiting_second",
      to: "withdrawn",
      actor: principal.actor,
      reason,
    });
    // The row is locked and was awaiting_second: endBulk cannot lose it.
    if (!ended) throw new Error(`bulk action ${input.bulkId} changed under its row lock`);
    return {
      ok: true,
      value: {
        id: input.bulkId,
        status: "withdrawn",
        withdrawnBy: principal.actor,
        skipped: ended.skipped.length,
      },
    };
  });
}
