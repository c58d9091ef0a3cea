// cancel (admin): any task that has not finished stops for good. A running attempt loses its
// lease with it, so its worker writes nothing more.
import type pg from "pg";
import type { Principal } from "../../domain/access";
import type { CommandResult } from "../../domain/command-result";
import { appendLedger, taskStream } from "../ledger/append-ledger";
import { bulkField } from "./bulk-principal";
import { reviewSpan } from "./review-span";
import { bumpTask, lockTaskFor, taskTransaction } from "./task-guard";
import { withdrawPending } from "./two-person";

export type CancelInput = {
  taskId: string;
  version: number;
  reason?: string;
  /** Set by the bulk runner: the bulk action this cancellation is part of. */
  bulkId?: string;
};

export const cancelTask = reviewSpan("cancel", cancelTaskUntraced);

async function cancelTaskUntraced(
  pool: pg.Pool,
  principal: Principal,
  input: CancelInput,
): Promise<CommandResult> {
  const { actor } = principal;
  return taskTransaction(pool, async (client): Promise<CommandResult> => {
    const locked = await lockTaskFor(client, principal, input.taskId, input.version, "cancel");
    if ("error" in locked) return locked.error;
    const { task } = locked;
    await withdrawPending(client, task.id, actor, "the task was cancelled", input.bulkId);
    const version = await bumpTask(
      client,
      task,
      `status = 'cancelled', dead_reason = null, lease_owner = null, lease_expires_at = null,
         status_changed_at = now()`,
    );
    await appendLedger(client, taskStream(task.id), {
      kind: "task.cancelled",
      actor,
      taskId: task.id,
      data: { from: task.status, reason: input.reason ?? null, ...bulkField(input.bulkId) },
    });
    return { ok: true, value: { id: task.id, status: "cancelled", version } };
  });
}
