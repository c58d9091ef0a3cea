// "Check with the provider": a reviewer asks that the tool's reconcile be run for an effect
// whose outcome is unknown. Provider code never runs in the web process: this records a
// pending check (and its ledger entry) that a worker running the agent answers. The task does
// not change, so its version stays and an open resolve form is not made stale. One pending
// check per effect: a double click, or a second reviewer, gets the check already waiting.
import type pg from "pg";
import type { Principal } from "../../domain/access";
import { type CommandResult, conflict, notFound } from "../../domain/command-result";
import { appendLedger, taskStream } from "../ledger/append-ledger";
import { reconcilableTools } from "../review/reconcile";
import { reviewSpan } from "./review-span";
import { lockTaskFor, notifyWorkers, taskTransaction } from "./task-guard";

export type RequestReconcileInput = { taskId: string; key: string };

export type RequestReconcileOutcome = {
  id: string;
  checkId: number;
  /** False when a check of this effect was already waiting: nothing new was asked. */
  created: boolean;
};

export const requestReconcile = reviewSpan("reconcile", requestReconcileUntraced);

async function requestReconcileUntraced(
  pool: pg.Pool,
  principal: Principal,
  input: RequestReconcileInput,
): Promise<CommandResult<RequestReconcileOutcome>> {
  return taskTransaction(pool, async (client): Promise<CommandResult<RequestReconcileOutcome>> => {
    const locked = await lockTaskFor(client, principal, input.taskId, null, "reconcile");
    if ("error" in locked) return locked.error;
    const { task } = locked;
    const effect = await client.query<{ tool: string; status: string; live: boolean }>(
      `select tool, status, coalesce(lease_expires_at > now(), false) as live from effects
       where key = $1 and task_id = $2`,
      [input.key, task.id],
    );
    const row = effect.rows[0];
    if (!row) return notFound(`task ${task.id} has no effect ${input.key}`);
    if (row.status !== "started" || row.live) {
      return conflict(
        `effect ${input.key.slice(0, 12)}… is ${row.live ? "in flight" : row.status}, not an unknown outcome`,
      );
    }
    const catalog = await reconcilableTools(client, task.agent);
    if (!catalog.known) {
      return conflict(
        `no worker has published agent ${task.agent}, so nothing can ask the provider; check by hand`,
      );
    }
    if (!catalog.tools.has(row.tool)) {
      return conflict(
        `${row.tool} has no reconcile: its provider cannot be asked by the worker; check by hand`,
      );
    }
    const inserted = await client.query<{ id: string }>(
      `insert into reconcile_checks (task_id, effect_key, agent, tool, requested_by)
       values ($1, $2, $3, $4, $5)
       on conflict (effect_key) where status = 'pending' do nothing
       returning id`,
      [task.id, input.key, task.agent, row.tool, principal.actor],
    );
    const id = inserted.rows[0]?.id;
    if (id === undefined) {
      const waiting = await client.query<{ id: string }>(
        "select id from reconcile_checks where effect_key = $1 and status = 'pending'",
        [input.key],
      );
      const existing = waiting.rows[0];
      // Requests for one task queue on its row lock, so the row we collided with is a committed
      // pending check; a miss means a worker answered it between the two statements.
      if (!existing) return conflict("the check was answered just now; look again");
      return { ok: true, value: { id: task.id, checkId: Number(existing.id), created: false } };
    }
    await appendLedger(client, taskStream(task.id), {
      kind: "effect.reconcile_requested",
      actor: principal.actor,
      taskId: task.id,
      key: input.key,
      data: { tool: row.tool, check: Number(id) },
    });
    await notifyWorkers(client, task.id);
    return { ok: true, value: { id: task.id, checkId: Number(id), created: true } };
  });
}
