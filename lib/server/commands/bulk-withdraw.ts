// A money bulk action waits for a second reviewer as a whole; until one confirms, the reviewer
// who froze it (or an admin) may take it back, as a single task's pending request is withdrawn.
// Nothing was done to its tasks yet: every member is marked skipped and the bulk's stream
// records `bulk.withdrawn`. Who may is lib/domain/bulk-actions' withdrawRefusal.
import type pg from "pg";
import { withTransaction } from "../../../db/client";
import type { Principal } from "../../domain/access";
import { withdrawRefusal } from "../../domain/bulk-actions";
import { type CommandResult, conflict, notFound } from "../../domain/command-result";
import { endBulk } from "./bulk-end";
import { lockBulk, skippedMembers } from "./bulk-lock";

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
    const bulk = await lockBulk(client, input.bulkId);
    if (!bulk) return notFound(`no bulk action ${input.bulkId}`);
    // A retried withdrawal by the one who withdrew it answers the same result.
    if (bulk.status === "withdrawn" && bulk.endedBy === principal.actor) {
      return {
        ok: true,
        value: {
          id: input.bulkId,
          status: "withdrawn",
          withdrawnBy: principal.actor,
          skipped: await skippedMembers(client, input.bulkId),
        },
      };
    }
    if (bulk.status === "running" || bulk.status === "done") {
      return conflict(
        bulk.confirmedBy
          ? `${bulk.confirmedBy} already confirmed this bulk action: it can no longer be withdrawn`
          : "this bulk action did not wait for a second reviewer: it can no longer be withdrawn",
      );
    }
    const refusal = withdrawRefusal(bulk, principal);
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
