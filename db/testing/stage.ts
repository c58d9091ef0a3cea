// Rows a test stages directly (no worker) on its own database: a completed journal step, a
// finished effect, a parked approval and an event wait, the way the runtime writes them, so
// each case states only what it needs. Keys are derived as the runtime derives them.
import type pg from "pg";
import { deriveEffectKey, payloadFingerprint } from "../../lib/domain/hash";
import type { StepKind } from "../../lib/domain/task-states";

export function stager(pool: pg.Pool) {
  return {
    /** A completed step `seq` of the journal; a tool step names its effect's key. */
    step: async (taskId: string, seq: number, kind: StepKind, name: string, key?: string) => {
      await pool.query(
        `insert into steps (task_id, seq, kind, name, status, result, effect_key, attempt, completed_at)
         values ($1, $2, $3, $4, 'completed', '{}', $5, 1, now())`,
        [taskId, seq, kind, name, key ?? null],
      );
    },
    /** The effect of step `seq` (intent `{seq}`), succeeded or failed; returns its key. */
    effect: async (
      taskId: string,
      seq: number,
      tool: string,
      status: "succeeded" | "failed",
    ): Promise<string> => {
      const intent = { seq };
      const key = deriveEffectKey(taskId, tool, intent);
      await pool.query(
        `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status, result, error, completed_at)
         values ($1, $2, $3, $4, $5, $5, $6, $7, $8, $9, now())`,
        [
          key,
          taskId,
          seq,
          tool,
          JSON.stringify(intent),
          payloadFingerprint(intent),
          status,
          status === "succeeded" ? '{"ok":true}' : null,
          status === "failed" ? '{"message":"declined"}' : null,
        ],
      );
      return key;
    },
    /** A pending approval of a 50,000 refund by `tool`; returns its id. */
    approval: async (taskId: string, tool: string, money: boolean): Promise<number> => {
      const args = { amount: 50_000 };
      const { rows } = await pool.query<{ id: number }>(
        `insert into approvals (task_id, effect_key, fingerprint, tool, args, money)
         values ($1, $2, $3, $4, $5, $6) returning id`,
        [
          taskId,
          deriveEffectKey(taskId, tool, { n: 1 }),
          payloadFingerprint(args),
          tool,
          JSON.stringify(args),
          money,
        ],
      );
      return rows[0]?.id ?? 0;
    },
    /** The task parked in `waiting` at step 1 for event `name` with `match`, no deadline. */
    waiting: async (taskId: string, name: string, match: Record<string, unknown>) => {
      await pool.query(
        `with parked as (
           update tasks set status = 'waiting', run_at = '9999-12-31', version = version + 1
           where id = $1 returning id
         )
         insert into event_waits (task_id, seq, name, match) select id, 1, $2, $3 from parked`,
        [taskId, name, JSON.stringify(match)],
      );
    },
  };
}
