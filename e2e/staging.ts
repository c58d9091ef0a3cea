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

/** `n` dead tasks of `agent` with `message`; with `refund`, a failed refund effect at step 1. */
export async function stageDead(
  db: pg.Pool,
  agent: string,
  message: string,
  n: number,
  refund = false,
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `insert into tasks (agent, input, status, dead_reason, attempts, last_error, created_by)
     select $1, jsonb_build_object('orderId', 'ord-' || g), 'dead', 'non_retryable', 3,
            jsonb_build_object('message', $2::text || ' (req_' || g || 'x' || g || ')'), 'e2e'
     from generate_series(1, $3) as g returning id`,
    [agent, message, n],
  );
  const ids = rows.map((r) => r.id);
  if (refund) {
    const keys = ids.map((id) => deriveEffectKey(id, "refund", { order: id }));
    await db.query(
      `insert into steps (task_id, seq, kind, name, status, attempt)
       select id, 1, 'tool', 'refund', 'started', 3 from unnest($1::uuid[]) as id`,
      [ids],
    );
    await db.query(
      `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status)
       select k, id, 1, 'refund', jsonb_build_object('order', id), jsonb_build_object('order', id), f, 'failed'
       from unnest($1::text[], $2::uuid[], $3::text[]) as x(k, id, f)`,
      [keys, ids, ids.map((id) => payloadFingerprint({ order: id }))],
    );
  }
  return ids;
}
