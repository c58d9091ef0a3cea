// A second reviewer reads a money bulk action that waits for them and says no, with a reason:
// nothing was done to its tasks yet, so every member is marked skipped with that reason and the
// bulk's stream records `bulk.declined` with who declined and why. The tasks stay dead for
// another decision. Who may is lib/domain/bulk-actions' declineRefusal (whoever may confirm).
import type pg from "pg";
import { withTransaction } from "../../../db/client";
import type { Principal } from "../../domain/access";
import { declineRefusal } from "../../domain/bulk-actions";
import { type CommandResult, conflict, invalid, notFound } from "../../domain/command-result";
import { endBulk } from "./bulk-end";
import { lockBulk, skippedMembers } from "./bulk-lock";

export type BulkDeclined = {
  id: string;
  status: "declined";
  declinedBy: string;
  skipped: number;
};

export async function declineBulkAction(
  pool: pg.Pool,
  principal: Principal,
  input: { bulkId: string; reason?: string },
): Promise<CommandResult<BulkDeclined>> {
  const why = input.reason?.trim() ?? "";
  return withTransaction(pool, async (client): Promise<CommandResult<BulkDeclined>> => {
    const bulk = await lockBulk(client, input.bulkId);
    if (!bulk) return notFound(`no bulk action ${input.bulkId}`);
    // A retried decline by the one who declined answers the same result.
    if (bulk.status === "declined" && bulk.endedBy === principal.actor) {
      return {
        ok: true,
        value: {
          id: input.bulkId,
          status: "declined",
          declinedBy: principal.actor,
          skipped: await skippedMembers(client, input.bulkId),
        },
      };
    }
    if (bulk.status === "running" || bulk.status === "done") {
      return conflict(
        `${bulk.confirmedBy ?? "another reviewer"} already confirmed this bulk action: it can no longer be declined`,
      );
    }
    if (bulk.status === "withdrawn" || bulk.status === "declined" || bulk.status === "stopped") {
      return conflict(
        `${bulk.endedBy ?? "someone"} already ended this bulk action (${bulk.status}): there is nothing to decline`,
      );
    }
    const refusal = declineRefusal(bulk, principal);
    if (refusal) return refusal;
    if (why === "") return invalid("a decline needs a reason: the reviewer who froze it reads it");
    const ended = await endBulk(client, {
      bulkId: input.bulkId,
      from: "awaiting_second",
      to: "declined",
      actor: principal.actor,
      reason: `declined by ${principal.actor}: ${why}`,
      data: { declinedBy: principal.actor, declineReason: why },
    });
    // The row is locked and was awaiting_second: endBulk cannot lose it.
    if (!ended) throw new Error(`bulk action ${input.bulkId} changed under its row lock`);
    return {
      ok: true,
      value: {
        id: input.bulkId,
        status: "declined",
        declinedBy: principal.actor,
        skipped: ended.skipped.length,
      },
    };
  });
}
