// reject: the task ends as rejected with the reviewer's reason; nothing more is done.
import type pg from "pg";
import { withTransaction } from "../../../db/client";
import { appendLedger, taskStream } from "../ledger/append-ledger";
import { type CommandResult, lockTaskFor } from "./task-guard";
import { withdrawPending } from "./two-person";

export type RejectInput = {
  taskId: string;
  version: number;
  actor: string;
  reason: string;
  /** The statuses this caller may reject from (an action pins the one its scope covers). */
  statuses?: readonly ("awaiting_approval" | "dead")[];
};

export async function rejectTask(pool: pg.Pool, input: RejectInput): Promise<CommandResult> {
  if (input.reason.trim() === "")
    return { ok: false, code: "invalid", message: "a rejection needs a reason" };
  return withTransaction(pool, async (client): Promise<CommandResult> => {
    const locked = await lockTaskFor(
      client,
      input.taskId,
      input.version,
      input.statuses ?? ["awaiting_approval", "dead"],
      "reject",
    );
    if ("error" in locked) return locked.error;
    const { task } = locked;
    await withdrawPending(client, task.id, input.actor, "the task was rejected");
    await client.query(
      `update approvals set status = 'rejected', decided_by = $2, decided_at = now(), reason = $3
       where task_id = $1 and status = 'pending'`,
      [task.id, input.actor, input.reason],
    );
    const { rows } = await client.query<{ version: number }>(
      `update tasks set status = 'rejected', dead_reason = null, version = version + 1,
         updated_at = now(), status_changed_at = now()
       where id = $1 and version = $2 returning version`,
      [task.id, task.version],
    );
    await appendLedger(client, taskStream(task.id), {
      kind: "review.rejected",
      actor: input.actor,
      taskId: task.id,
      data: { from: task.status, deadReason: task.dead_reason, reason: input.reason },
    });
    return {
      ok: true,
      value: { id: task.id, status: "rejected", version: rows[0]?.version ?? task.version + 1 },
    };
  });
}
