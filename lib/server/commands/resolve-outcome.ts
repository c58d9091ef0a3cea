// resolve an unknown outcome: a reviewer who checked with the provider says "it happened"
// (recording its result, so the replay deduplicates) or "it did not" (the effect may act with
// the same key). The dead task then resumes, except after "it did not" on an effect that moves
// money: one reviewer records the fact, and resuming (which would send the money again) is an
// approve that the two-person rule covers.
import type pg from "pg";
import type { Principal } from "../../domain/access";
import { type CommandResult, conflict, notFound } from "../../domain/command-result";
import { type JsonValue, toJsonValue } from "../../domain/json";
import { appendLedger, taskStream } from "../ledger/append-ledger";
import { moneyToolsOf } from "../review/preview";
import { reviewSpan } from "./review-span";
import {
  bumpTask,
  lockTaskFor,
  notifyWorkers,
  requeueReviewed,
  taskTransaction,
  theRow,
} from "./task-guard";
import { withdrawPending } from "./two-person";

export type ResolveInput = {
  taskId: string;
  version: number;
  key: string;
} & ({ happened: true; result: JsonValue } | { happened: false });

export const resolveOutcome = reviewSpan("resolve_outcome", resolveOutcomeUntraced);

async function resolveOutcomeUntraced(
  pool: pg.Pool,
  principal: Principal,
  input: ResolveInput,
): Promise<CommandResult> {
  const { actor } = principal;
  return taskTransaction(pool, async (client): Promise<CommandResult> => {
    const locked = await lockTaskFor(client, principal, input.taskId, input.version, "resolve");
    if ("error" in locked) return locked.error;
    const { task } = locked;
    const effect = await client.query<{ tool: string; status: string; live: boolean }>(
      `select tool, status, coalesce(lease_expires_at > now(), false) as live from effects
       where key = $1 and task_id = $2 for update`,
      [input.key, task.id],
    );
    const row = effect.rows[0];
    if (!row) return notFound(`task ${task.id} has no effect ${input.key}`);
    if (row.status !== "started" || row.live) {
      return conflict(
        `effect ${input.key.slice(0, 12)}… is ${row.live ? "in flight" : row.status}, not an unknown outcome`,
      );
    }
    await withdrawPending(client, task.id, actor, "an unknown outcome was resolved");
    const result = input.happened ? toJsonValue(input.result, "result") : null;
    const updated = await client.query(
      `update effects set status = $2, result = $3, error = $4, lease_owner = null, lease_expires_at = null,
         completed_at = case when $2 = 'succeeded' then now() else null end, updated_at = now()
       where key = $1 and status = 'started' returning key`,
      [
        input.key,
        input.happened ? "succeeded" : "failed",
        result === null ? null : JSON.stringify(result),
        input.happened
          ? null
          : JSON.stringify({
              name: "ResolvedNotHappened",
              message: `${actor} confirmed it did not happen`,
            }),
      ],
    );
    theRow(updated.rows, `effect ${input.key.slice(0, 12)}…`);
    const holdForTwo = !input.happened && (await moneyToolsOf(client, task)).money.has(row.tool);
    // Held for two people, the task stays dead but changed: its effect's outcome is known.
    const version = holdForTwo
      ? await bumpTask(client, task, "")
      : await requeueReviewed(client, task, true);
    await appendLedger(client, taskStream(task.id), {
      kind: "outcome.resolved",
      actor,
      taskId: task.id,
      key: input.key,
      data: { happened: input.happened, result, resumed: !holdForTwo },
    });
    if (holdForTwo) return { ok: true, value: { id: task.id, status: "dead", version } };
    await notifyWorkers(client, task.id);
    return { ok: true, value: { id: task.id, status: "queued", version } };
  });
}
