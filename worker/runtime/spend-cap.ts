// An agent's daily spend cap (spend_caps), checked before each model call: the cap and today's
// (UTC) spend for the agent, and for the task's value of the capped input key, in one statement.
// Read per call rather than at claim because the spend moves with every call anyway, and so a
// raised or cleared cap applies to the very next call. Spend is counted after a call answers, so
// each task in flight can pass the cap by at most the one call it had started when it was reached.
import { retryOnConnectionError } from "../../db/retry";
import type { JsonValue } from "../../lib/domain/json";
import { formatCostUsd } from "../../lib/domain/money";
import type { AttemptScope } from "./context";
import { DeadLetterError, SuspendError } from "./errors";

type CapRow = {
  daily_limit: number | null;
  key_path: string | null;
  key_daily_limit: number | null;
  on_exceed: "wait" | "dead";
  spent: number;
  key_value: string | null;
  key_spent: number;
};

/** The start of the next UTC day: when a day's budget is whole again. */
export function nextUtcMidnight(now = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/**
 * Throws when the agent (or the task's key) has spent its day's budget: SuspendError until the
 * next UTC midnight (on_exceed 'wait', the task.requeued entry carries `budget`) or
 * DeadLetterError("budget") ('dead'). Returns the task's key value when the cap names a key
 * (recordSpend counts it per key), else null. The key is `key_path`, a dot path into the task's
 * input; a missing or non-scalar value (an object, an array, null), an empty string or one
 * longer than 200 characters is no key: only the agent's
 * whole cap applies to that task.
 */
export async function enforceSpendCap(
  scope: Pick<AttemptScope, "pool" | "taskId" | "signal">,
  agent: string,
): Promise<string | null> {
  // A read: retried through a database restart like the runtime's other statements.
  const { rows } = await retryOnConnectionError(
    () =>
      scope.pool.query<CapRow>({
        name: "runtime_spend_cap",
        text: `with today as (select (now() at time zone 'UTC')::date as day),
      k as (
        select case when jsonb_typeof(t.input #> string_to_array(c.key_path, '.'))
                         in ('string', 'number', 'boolean')
                      and length(t.input #>> string_to_array(c.key_path, '.')) between 1 and 200
               then t.input #>> string_to_array(c.key_path, '.') end as key_value
        from spend_caps c, tasks t where c.agent = $1 and t.id = $2 and c.key_path is not null
      )
      select c.daily_limit, c.key_path, c.key_daily_limit, c.on_exceed,
        case when c.daily_limit is null then 0 else (select coalesce(sum(s.cost), 0)
          from spend_daily s, today where s.day = today.day and s.agent = c.agent) end as spent,
        (select key_value from k) as key_value,
        coalesce((select sum(s.cost) from spend_key_daily s, today, k
          where s.day = today.day and s.agent = c.agent and s.key_value = k.key_value), 0) as key_spent
      from spend_caps c where c.agent = $1`,
        values: [agent, scope.taskId],
      }),
    { signal: scope.signal },
  );
  const cap = rows[0];
  if (!cap) return null;
  const key = cap.key_path !== null && cap.key_value !== null ? cap.key_value : null;
  let over: { limit: number; spent: number; key: string | null } | null = null;
  if (cap.daily_limit !== null && cap.spent >= cap.daily_limit) {
    over = { limit: cap.daily_limit, spent: cap.spent, key: null };
  } else if (key !== null && cap.key_daily_limit !== null && cap.key_spent >= cap.key_daily_limit) {
    over = { limit: cap.key_daily_limit, spent: cap.key_spent, key };
  }
  if (!over) return key;
  const whose =
    over.key === null ? `agent ${agent}` : `agent ${agent} for ${cap.key_path} ${over.key}`;
  const amounts = `${formatCostUsd(over.spent)} of its ${formatCostUsd(over.limit)} daily budget`;
  if (cap.on_exceed === "dead") {
    throw new DeadLetterError("budget", `${whose} has spent ${amounts} today (UTC)`);
  }
  const until = nextUtcMidnight();
  const budget: Record<string, JsonValue> = {
    agent,
    limit: over.limit,
    spent: over.spent,
    ...(over.key === null ? {} : { keyPath: cap.key_path, key: over.key }),
  };
  throw new SuspendError(
    until,
    `daily budget: ${whose} spent ${amounts}; waits until ${until.toISOString()}`,
    { budget },
  );
}
