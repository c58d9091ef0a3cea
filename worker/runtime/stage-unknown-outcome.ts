// A dead task whose effect started and lost its lease without a result (outcome unknown), as a
// crashed worker leaves it: for the resolve and "check with the provider" tests, vitest and
// Playwright alike (so it imports neither).
import type pg from "pg";
import { withTransaction } from "../../db/client";
import { deriveEffectKey, payloadFingerprint } from "../../lib/domain/hash";
import type { JsonValue } from "../../lib/domain/json";
import { insertTask } from "../../lib/server/commands/enqueue-task";

export async function stageUnknownOutcome(
  pool: pg.Pool,
  opts: { agent: string; tool: string; args: JsonValue; intent: JsonValue },
): Promise<{ taskId: string; key: string; version: number }> {
  // Dead in the transaction that creates it: a worker running this agent (the reconcile spec
  // starts one) must never see it queued, or it claims it first and the update to dead breaks
  // the lease check (a CI rehearsal hit that race).
  const { taskId, rows } = await withTransaction(pool, async (c) => {
    const { taskId } = await insertTask(c, { agent: opts.agent, input: {}, actor: "test" });
    const { rows } = await c.query<{ version: number }>(
      `update tasks set status = 'dead', dead_reason = 'outcome_unknown', attempts = 1,
         version = version + 1 where id = $1 returning version`,
      [taskId],
    );
    return { taskId, rows };
  });
  const key = await stageLostClaim(pool, { taskId, ...opts });
  return { taskId, key, version: rows[0]?.version ?? 0 };
}

/**
 * The claim a crashed attempt leaves: the task's effect for this intent started at step 1 and
 * its lease ran out without a result. The task runs next into the outcome-unknown path.
 */
export async function stageLostClaim(
  pool: pg.Pool,
  opts: { taskId: string; tool: string; args: JsonValue; intent: JsonValue },
): Promise<string> {
  const key = deriveEffectKey(opts.taskId, opts.tool, opts.intent);
  await pool.query(
    `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status, lease_owner, lease_expires_at)
     values ($1, $2, 1, $3, $4, $5, $6, 'started', 'gone', now() - interval '1 minute')`,
    [
      key,
      opts.taskId,
      opts.tool,
      JSON.stringify(opts.intent),
      JSON.stringify(opts.args),
      payloadFingerprint(opts.args),
    ],
  );
  return key;
}
