// Test set-up the bulk action tests share: dead tasks staged with SQL as a worker would have
// left them (optionally with a failed refund effect at step 1), the database clock a dialog
// would carry as asOf, and real users rows for the people a bulk runs for (the runner re-reads
// them at run time).
import type pg from "pg";
import type { Role } from "../../domain/access";
import { operator } from "../../domain/access";
import { deriveEffectKey, payloadFingerprint } from "../../domain/hash";
import { createUser } from "./users";

export async function dbNow(pool: pg.Pool): Promise<string> {
  const { rows } = await pool.query<{ now: string }>(
    `select to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as now`,
  );
  return rows[0]?.now ?? "";
}

/**
 * `n` dead tasks of `agent`, each with a failed refund effect at step 1 when `refund`; with
 * `money`, the refund's recorded arguments carry the i-th task's amount and currency.
 */
export async function stageDead(
  pool: pg.Pool,
  agent: string,
  n: number,
  opts: {
    refund?: boolean;
    message?: string;
    money?: (i: number) => { amountCents: number; currency: string };
  } = {},
): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>(
    `insert into tasks (agent, input, status, dead_reason, last_error, attempts, created_by)
     select $1, '{}', 'dead', 'non_retryable', $2::jsonb, 3, 'test' from generate_series(1, $3)
     returning id`,
    [agent, JSON.stringify({ message: opts.message ?? "payments: 502 Bad Gateway" }), n],
  );
  const ids = rows.map((r) => r.id);
  if (opts.refund) {
    for (const [i, id] of ids.entries()) {
      const intent = { order: id };
      const args = { ...intent, ...opts.money?.(i) };
      await pool.query(
        `insert into steps (task_id, seq, kind, name, status, attempt) values ($1, 1, 'tool', 'refund', 'started', 3)`,
        [id],
      );
      await pool.query(
        `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status)
         values ($1, $2, 1, 'refund', $3, $4, $5, 'failed')`,
        [
          deriveEffectKey(id, "refund", intent),
          id,
          JSON.stringify(intent),
          JSON.stringify(args),
          payloadFingerprint(args),
        ],
      );
    }
  }
  return ids;
}

/**
 * An agent whose refund tool moves money, as the workers publish it; `declared`: the tool says
 * its amount is `amountCents` and its currency `currency` (refund's own declaration).
 */
export async function publishMoneyAgent(
  pool: pg.Pool,
  agent: string,
  opts: { declared?: boolean } = {},
): Promise<void> {
  const tool = {
    name: "refund",
    money: true,
    ...(opts.declared ? { moneyArgs: { amount: "amountCents", currency: "currency" } } : {}),
  };
  await pool.query(
    `insert into agent_catalog (name, input_schema, tools, published_by)
     values ($1, '{}', $2, 'test')`,
    [agent, JSON.stringify([tool])],
  );
}

/** A users row for `email` with `role` (the people testViewer stands for); returns its id. */
export async function addUser(pool: pg.Pool, role: Role, email: string): Promise<string> {
  const r = await createUser(pool, operator("test"), {
    email,
    role,
    password: "correct horse battery staple",
  });
  if (!r.ok) throw new Error(`user ${email} not created: ${r.message}`);
  return r.value.id;
}
