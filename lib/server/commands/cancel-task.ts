// cancel (admin): any task that has not finished stops for good. A running attempt loses its
// lease with it, so its worker writes nothing more.
import type pg from "pg";
import { withTransaction } from "../../../db/client";
import { appendLedger, taskStream } from "../ledger/append-ledger";
import { type CommandResult, lockTaskFor } from "./task-guard";
import { withdrawPending } from "./two-person";

export type CancelInput = { taskId: string; version: number; actor: string; reason?: string };

export async function cancelTask(pool: pg.Pool, input: CancelInput): Promise<CommandResult> {
  return withTransaction(pool, async (client): Promise<CommandResult> => {
    const locked = await lockTaskFor(
      client,
      input.taskId,
      input.version,
      ["queued", "running", "retry_wait", "awaiting_approval", "dead"],
      "cancel",
    );
    if ("error" in locked) return locked.error;
    const { task } = locked;
    await withdrawPending(client, task.id, input.actor, "the task was cancelled");
    const { rows } = await client.query<{ version: number }>(
      `update tasks set status = 'cancelled', dead_reason = null, lease_owner = null, lease_expires_at = null,
         version = version + 1, updated_at = now(), status_changed_at = now()
       where id = $1 and version = $2 returning version`,
      [task.id, task.version],
    );
    await appendLedger(client, taskStream(task.id), {
      kind: "task.cancelled",
      actor: input.actor,
      taskId: task.id,
      data: { from: task.status, reason: input.reason ?? null },
    });
    return {
      ok: true,
      value: { id: task.id, status: "cancelled", version: rows[0]?.version ?? task.version + 1 },
    };
  });
}
