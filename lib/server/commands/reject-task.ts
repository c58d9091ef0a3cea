// reject: the task ends as rejected with the reviewer's reason; nothing more is done.
import type pg from "pg";
import type { Principal } from "../../domain/access";
import { type CommandResult, invalid } from "../../domain/command-result";
import { appendLedger, taskStream } from "../ledger/append-ledger";
import { bulkField } from "./bulk-principal";
import { reviewSpan } from "./review-span";
import { bumpTask, lockTaskFor, taskTransaction } from "./task-guard";
import { withdrawPending } from "./two-person";

export type RejectInput = {
  taskId: string;
  version: number;
  reason: string;
  /** Set by the bulk runner: the bulk action this rejection is part of. */
  bulkId?: string;
};

export const rejectTask = reviewSpan("reject", rejectTaskUntraced);

async function rejectTaskUntraced(
  pool: pg.Pool,
  principal: Principal,
  input: RejectInput,
): Promise<CommandResult> {
  if (input.reason.trim() === "") return invalid("a rejection needs a reason");
  const { actor } = principal;
  return taskTransaction(pool, async (client): Promise<CommandResult> => {
    const locked = await lockTaskFor(client, principal, input.taskId, input.version, "reject");
    if ("error" in locked) return locked.error;
    const { task } = locked;
    await withdrawPending(client, task.id, actor, "the task was rejected", input.bulkId);
    await client.query(
      `update approvals set status = 'rejected', decided_by = $2, decided_at = now(), reason = $3
       where task_id = $1 and status = 'pending'`,
      [task.id, actor, input.reason],
    );
    const version = await bumpTask(
      client,
      task,
      "status = 'rejected', dead_reason = null, status_changed_at = now()",
    );
    await appendLedger(client, taskStream(task.id), {
      kind: "review.rejected",
      actor,
      taskId: task.id,
      data: {
        from: task.status,
        deadReason: task.dead_reason,
        reason: input.reason,
        ...bulkField(input.bulkId),
      },
    });
    return { ok: true, value: { id: task.id, status: "rejected", version } };
  });
}
