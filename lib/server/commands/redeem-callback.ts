// A task's callback link (ctx.callbackUrl): the signed token is the authorization. Reading it
// says what confirming would do; using it sends the step's event to that task only, once: the
// event's key is the link's, so a second use finds it and is refused as gone.
import type pg from "pg";
import { CALLBACK_STEP, verifyCallback } from "../../domain/callback-token";
import { type CommandResult, conflict, notFound } from "../../domain/command-result";
import { deliverEvent, type SentEvent } from "./send-event";

export type CallbackLink = { taskId: string; step: number; name: string; used: boolean };

const keyOf = (taskId: string, step: number) => `callback:${taskId}.${step}`;

/** What the token names, or not found for a tampered token or a step that made no link. */
export async function readCallback(
  pool: pg.Pool,
  secret: string,
  token: string,
): Promise<CommandResult<CallbackLink>> {
  const link = verifyCallback(secret, token);
  if (!link) return notFound("no such callback link");
  const { rows } = await pool.query<{ name: string; used: boolean }>({
    name: "callback_read",
    text: `select s.result->>'name' as name,
                  exists (select 1 from events e where e.idempotency_key = $3) as used
           from steps s
           where s.task_id = $1 and s.seq = $2 and s.kind = 'step' and s.name = $4 and s.status = 'completed'`,
    values: [link.taskId, link.step, keyOf(link.taskId, link.step), CALLBACK_STEP],
  });
  const row = rows[0];
  if (!row?.name) return notFound("no such callback link");
  return { ok: true, value: { ...link, name: row.name, used: row.used } };
}

/** Sends the link's event to its task; a link used before is a conflict (410 Gone). */
export async function redeemCallback(
  pool: pg.Pool,
  secret: string,
  token: string,
  keepMs: number,
): Promise<CommandResult<SentEvent>> {
  const read = await readCallback(pool, secret, token);
  if (!read.ok) return read;
  const { taskId, step, name } = read.value;
  if (read.value.used) return conflict("this link was used already");
  const sent = await deliverEvent(pool, `callback:${taskId}.${step}`, {
    name,
    payload: { callback: step },
    key: keyOf(taskId, step),
    keepMs,
    task: taskId,
  });
  // Two uses at once: the second finds the first's event under the key.
  if (sent.ok && !sent.value.created) return conflict("this link was used already");
  return sent;
}
