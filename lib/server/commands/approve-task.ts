// approve: a parked gated effect may act (only with the payload the reviewer saw), or a dead
// task resumes from its last completed step with a fresh attempt budget.
import type pg from "pg";
import { withTransaction } from "../../../db/client";
import { appendLedger, taskStream } from "../ledger/append-ledger";
import { type CommandResult, lockTaskFor, notifyWorkers, requeueReviewed } from "./task-guard";

export type ApproveInput = { taskId: string; version: number; actor: string; note?: string };

export async function approveTask(pool: pg.Pool, input: ApproveInput): Promise<CommandResult> {
  return withTransaction(pool, async (client): Promise<CommandResult> => {
    const locked = await lockTaskFor(
      client,
      input.taskId,
      input.version,
      ["awaiting_approval", "dead"],
      "approve",
    );
    if ("error" in locked) return locked.error;
    const { task } = locked;
    const approved = await client.query<{
      id: number;
      effect_key: string;
      fingerprint: string;
      tool: string;
    }>(
      `update approvals set status = 'approved', decided_by = $2, decided_at = now(), reason = $3
       where task_id = $1 and status = 'pending'
       returning id, effect_key, fingerprint, tool`,
      [task.id, input.actor, input.note ?? null],
    );
    // A dead task resumes with a fresh attempt budget; a parked one keeps its count.
    const version = await requeueReviewed(client, task, task.status === "dead");
    await appendLedger(client, taskStream(task.id), {
      kind: "review.approved",
      actor: input.actor,
      taskId: task.id,
      data: {
        from: task.status,
        deadReason: task.dead_reason,
        note: input.note ?? null,
        approvals: approved.rows.map((a) => ({
          id: a.id,
          key: a.effect_key,
          fingerprint: a.fingerprint,
          tool: a.tool,
        })),
      },
    });
    await notifyWorkers(client, task.id);
    return { ok: true, value: { id: task.id, status: "queued", version } };
  });
}
