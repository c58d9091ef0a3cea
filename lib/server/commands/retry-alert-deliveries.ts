// Retry all of one destination's undelivered alerts: an admin replays, from step 1, every dead
// alert-delivery task of one rule. Each task is the same replay a reviewer makes (replay-task:
// the task-actions table checked under its row lock, its own transaction and its own
// `replay.requested` entry with the admin as actor); the webhook keeps its key, so a receiver
// that got an alert before its answer was lost sees the same webhook-id and deduplicates.
// Idempotent: a task another click already requeued is no longer dead and is skipped, and with
// nothing dead left for the rule the command says so instead of doing nothing quietly.
import type pg from "pg";
import type { Principal } from "../../domain/access";
import { ALERT_DELIVERY_AGENT } from "../../domain/alerts";
import { type CommandResult, conflict, invalid, refuseWithout } from "../../domain/command-result";
import { replayTask } from "./replay-task";

export type RetryAlertDeliveriesResult = {
  ruleId: string;
  /** Tasks requeued by this call. */
  retried: number;
  /** Tasks that were no longer dead when reached (someone else retried or triaged them). */
  skipped: number;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function retryAlertDeliveries(
  pool: pg.Pool,
  principal: Principal,
  input: { ruleId: string },
): Promise<CommandResult<RetryAlertDeliveriesResult>> {
  const refused = refuseWithout(principal, "alerts:write", "retry undelivered alerts");
  if (refused) return refused;
  if (!UUID.test(input.ruleId)) return invalid("ruleId must be an alert rule's id");
  // The set is read once, oldest first; each task is then locked and checked on its own.
  const { rows } = await pool.query<{ id: string; version: number }>(
    `select id, version from tasks
     where status = 'dead' and agent = $1 and input ->> 'ruleId' = $2
     order by status_changed_at, id`,
    [ALERT_DELIVERY_AGENT, input.ruleId],
  );
  if (rows.length === 0) {
    return conflict("nothing to retry: no alert of this rule is undelivered");
  }
  let retried = 0;
  let skipped = 0;
  for (const task of rows) {
    const result = await replayTask(pool, principal, {
      taskId: task.id,
      version: task.version,
      fromStep: 1,
    });
    if (result.ok) {
      retried += 1;
    } else if (result.code === "conflict") {
      skipped += 1;
    } else {
      // Forbidden or invalid is the same for every task: stop at the first and say why.
      return result;
    }
  }
  if (retried === 0) {
    return conflict("nothing to retry: every undelivered alert of this rule was already retried");
  }
  return { ok: true, value: { ruleId: input.ruleId, retried, skipped } };
}
