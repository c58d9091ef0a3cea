// resolve an unknown outcome: a reviewer who checked with the provider says "it happened"
// (recording its result, so the replay deduplicates) or "it did not" (the effect may act with
// the same key). The dead task then resumes, except after "it did not" on an effect that moves
// money: one reviewer records the fact, and resuming (which would send the money again) is an
// approve that the two-person rule covers.
import type pg from "pg";
import { type SqlClient, withTransaction } from "../../../db/client";
import { type JsonValue, toJsonValue } from "../../domain/json";
import { appendLedger, taskStream } from "../ledger/append-ledger";
import { moneyToolsOf } from "../queries/review-preview";
import { type CommandResult, lockTaskFor, notifyWorkers, requeueReviewed } from "./task-guard";
import { withdrawPending } from "./two-person";

export type ResolveInput = {
  taskId: string;
  version: number;
  key: string;
  actor: string;
} & ({ happened: true; result: JsonValue } | { happened: false });

export async function resolveOutcome(pool: pg.Pool, input: ResolveInput): Promise<CommandResult> {
  return withTransaction(pool, async (client): Promise<CommandResult> => {
    const locked = await lockTaskFor(
      client,
      input.taskId,
      input.version,
      ["dead"],
      "resolve an outcome of",
    );
    if ("error" in locked) return locked.error;
    const { task } = locked;
    const effect = await client.query<{ tool: string; status: string; live: boolean }>(
      `select tool, status, coalesce(lease_expires_at > now(), false) as live from effects
       where key = $1 and task_id = $2 for update`,
      [input.key, task.id],
    );
    const row = effect.rows[0];
    if (!row)
      return {
        ok: false,
        code: "not_found",
        message: `task ${task.id} has no effect ${input.key}`,
      };
    if (row.status !== "started" || row.live) {
      return {
        ok: false,
        code: "conflict",
        message: `effect ${input.key.slice(0, 12)}… is ${row.live ? "in flight" : row.status}, not an unknown outcome`,
      };
    }
    await withdrawPending(client, task.id, input.actor, "an unknown outcome was resolved");
    const result = input.happened ? toJsonValue(input.result, "result") : null;
    await client.query(
      `update effects set status = $2, result = $3, error = $4, lease_owner = null, lease_expires_at = null,
         completed_at = case when $2 = 'succeeded' then now() else null end, updated_at = now()
       where key = $1`,
      [
        input.key,
        input.happened ? "succeeded" : "failed",
        result === null ? null : JSON.stringify(result),
        input.happened
          ? null
          : JSON.stringify({
              name: "ResolvedNotHappened",
              message: `${input.actor} confirmed it did not happen`,
            }),
      ],
    );
    const holdForTwo = !input.happened && (await moneyToolsOf(client, task)).money.has(row.tool);
    const version = holdForTwo
      ? await touchVersion(client, task.id)
      : await requeueReviewed(client, task, true);
    await appendLedger(client, taskStream(task.id), {
      kind: "outcome.resolved",
      actor: input.actor,
      taskId: task.id,
      key: input.key,
      data: { happened: input.happened, result, resumed: !holdForTwo },
    });
    if (holdForTwo) return { ok: true, value: { id: task.id, status: "dead", version } };
    await notifyWorkers(client, task.id);
    return { ok: true, value: { id: task.id, status: "queued", version } };
  });
}

/** The task changed (its effect's outcome is known) but stays where it is. */
async function touchVersion(client: SqlClient, taskId: string): Promise<number> {
  const { rows } = await client.query<{ version: number }>(
    "update tasks set version = version + 1, updated_at = now() where id = $1 returning version",
    [taskId],
  );
  return rows[0]?.version ?? 0;
}
