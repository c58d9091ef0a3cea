// approve: a parked gated effect may act (only with the payload the reviewer saw), or a dead
// task resumes from its last completed step with a fresh attempt budget.
import type pg from "pg";
import { withTransaction } from "../../../db/client";
import { appendLedger, taskStream } from "../ledger/append-ledger";
import { type CommandResult, lockTaskFor, notifyWorkers } from "./task-guard";

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
    const { rows } = await client.query<{ version: number }>(
      `update tasks set status = 'queued', dead_reason = null, run_at = now(),
         attempts = case when status = 'dead' then 0 else attempts end,
         version = version + 1, updated_at = now(), status_changed_at = now()
       where id = $1 and version = $2 returning version`,
      [task.id, task.version],
    );
    const version = rows[0]?.version ?? task.version + 1;
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
