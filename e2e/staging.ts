// Rows staged as the runtime leaves them, for specs that start from a state no demo agent
// reaches on demand. Beside ../fixtures (the test, users, workers) and shared by the specs and
// the journeys, so a staged state is written once.
import type pg from "pg";
import { deriveEffectKey, payloadFingerprint } from "../lib/domain/hash";
import { stageUnknownOutcome as stageEffectOutcome } from "../worker/runtime/stage-unknown-outcome";
import { enqueue, randomWord } from "./fixtures";

/**
 * A task dead with `outcome_unknown`: its send_email to `to` started and its lease ran out with
 * no result, as a worker that crashed mid-send leaves it. Returns the task and the effect key.
 */
export async function stageUnknownOutcome(
  db: pg.Pool,
  to: string,
): Promise<{ taskId: string; key: string }> {
  const { taskId, key } = await stageEffectOutcome(db, {
    agent: `e2e-mailer-${randomWord(6)}`,
    tool: "send_email",
    args: { to },
    intent: { to },
  });
  return { taskId, key };
}

/** A dead task whose agent's `pay` tool moves money and whose step 2 payment failed. */
export async function deadPayer(db: pg.Pool): Promise<{ taskId: string; version: number }> {
  const agent = `e2e-inbox-payer-${randomWord(6)}`;
  await db.query(
    `insert into agent_catalog (name, input_schema, tools, published_by) values ($1, '{}', $2, 'e2e')`,
    [agent, JSON.stringify([{ name: "pay", money: true }])],
  );
  const taskId = await enqueue(db, agent, {});
  const { rows } = await db.query<{ version: number }>(
    `update tasks set status = 'dead', dead_reason = 'exhausted', attempts = 1, version = version + 1,
       last_error = '{"message": "card declined"}'
     where id = $1 returning version`,
    [taskId],
  );
  await db.query(
    `insert into steps (task_id, seq, kind, name, status, result, attempt, completed_at)
     values ($1, 1, 'step', 'amount', 'completed', '{"amount": 5000}', 1, now())`,
    [taskId],
  );
  const intent = { invoice: taskId };
  await db.query(
    `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status, error)
     values ($1, $2, 2, 'pay', $3, $3, $4, 'failed', '{"message": "card declined"}')`,
    [
      deriveEffectKey(taskId, "pay", intent),
      taskId,
      JSON.stringify(intent),
      payloadFingerprint(intent),
    ],
  );
  return { taskId, version: rows[0]?.version ?? 0 };
}
