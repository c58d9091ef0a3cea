// The task-level SQL of the runtime, in view: claim a batch, extend leases, finish, fail,
// suspend, release, reap. Every write is guarded by `lease_owner = $worker and status =
// 'running'` and a zero row count means our lease is gone.
import type { SqlClient } from "../../db/client";
import type { JsonValue } from "../../lib/domain/json";
import type { DeadReason, StepKind } from "../../lib/domain/task-states";
import { TASKS_CHANNEL } from "../../lib/server/commands/insert-tasks";
import { carriesStartClaimedAtText } from "../../lib/server/ledger/attempt-start-sql";
import type { PolicyRow } from "./policy";

/**
 * "Running under `worker`'s lease" (SQL), for the statements that name their tasks by id. Said
 * through the lease's columns, not `status = 'running'`: that predicate matches the partial
 * indexes on running tasks (tasks_concurrency_running_idx, tasks_lease_idx), and a planner whose
 * statistics had seen few running tasks walked every running task of the fleet to find a
 * statement's own few, instead of looking each up by its key (a completion of 16 read all 300
 * running tasks; lease-plan.test.ts). The same rows: tasks_lease_check holds status = 'running'
 * exactly when lease_owner and lease_expires_at are both set.
 */
export function leasedTo(worker: string, alias?: string): string {
  const t = alias ? `${alias}.` : "";
  return `${t}lease_owner = ${worker} and ${t}lease_expires_at is not null`;
}

export type ClaimedTask = {
  id: string;
  agent: string;
  input: JsonValue;
  /** The attempt number, counted across resumes and replays (what screens and /why show). */
  attempts: number;
  /** Attempts before the current budget: `attempts - attempt_base` is what the policy limits. */
  attempt_base: number;
  policy: JsonValue | null;
  cost: number;
  /** The agent's concurrency key for it; null when the agent is not keyed (issue 21). */
  concurrency_key: string | null;
  /** The enqueuer's W3C traceparent: the parent of the attempt's span (tracing.ts). */
  traceparent?: string | null;
  /** When the claim took it: the attempt's start, as its first entry will record it. */
  claimed_at: Date;
};

export type ClaimedRow = ClaimedTask & {
  /** The task's completed steps, in order (json from the same statement). */
  journal: {
    seq: number;
    kind: StepKind;
    name: string;
    result: JsonValue;
    effect_key: string | null;
  }[];
  /** The global retry policy row and the claimed agents' rows, the same on every row. */
  policies: PolicyRow[];
  /** Admins' tool rate limits (tool_rate_limits), the same on every row. */
  tool_limits: ToolLimitRow[];
  /** The task stream's head as the claim read it: the attempt appends on it (null: no stream). */
  head_seq: string | null;
  head_hash: string | null;
  head_at: Date | null;
};

/** An admin's rate limit for one tool, as the claim reads it. */
export type ToolLimitRow = { tool: string; limit: number; periodMs: number };

/** Where a task can be claimed from: runnable now, or a wait at its deadline (run_at). */
export const CLAIMABLE = "('queued', 'retry_wait', 'waiting')";

/**
 * The claim of the rows in a `candidates` CTE and what their attempts need, in the same
 * statement: each journal, the policy rows and the admins' tool rate limits. One text for the
 * plain claim and a limited agent's (concurrency-sql.ts); `worker` and `leaseMs` are their
 * parameters' places.
 */
export function claimedRowsSql(worker: string, leaseMs: string): string {
  return `claimed as (
             update tasks t
             set status = 'running', attempts = t.attempts + 1, lease_owner = ${worker},
                 lease_expires_at = now() + ${leaseMs} * interval '1 millisecond',
                 -- The statement's time, not the transaction's: a limited agent's claim may have
                 -- waited for its claim lock first. The attempt's start records this time.
                 version = t.version + 1, updated_at = now(), status_changed_at = statement_timestamp()
             from candidates c where t.id = c.id and t.status in ${CLAIMABLE}
             returning t.id, t.agent, t.input, t.attempts, t.attempt_base, t.policy, t.cost, t.concurrency_key,
                       t.traceparent, t.status_changed_at as claimed_at
           ), policies as (
             select coalesce(json_agg(p), '[]') as policies from (
               select scope, max_attempts, backoff_initial_ms, backoff_factor, backoff_max_ms,
                      attempt_timeout_ms, budget, concurrency_limit
               from retry_policies
               where scope = 'global' or scope in (select 'agent:' || agent from claimed)
             ) p
           ), tool_limits as (
             select coalesce(json_agg(json_build_object('tool', tool, 'limit', "limit", 'periodMs', period_ms)), '[]')
                      as tool_limits
             from tool_rate_limits
           )
           select c.*,
                  coalesce((select json_agg(json_build_object('seq', s.seq, 'kind', s.kind, 'name', s.name,
                                                              'result', s.result, 'effect_key', s.effect_key)
                                            order by s.seq)
                            from journal_steps s where s.task_id = c.id and s.status = 'completed'), '[]') as journal,
                  (select policies from policies) as policies,
                  (select tool_limits from tool_limits) as tool_limits,
                  h.head_seq, h.head_hash, h.updated_at as head_at
           from claimed c left join ledger_streams h on h.stream = 'task:' || c.id`;
}

/**
 * Each agent's next runnable tasks in claim order, at most `limit` of each, locked (others'
 * locked rows skipped): one walk of tasks_agent_claim_idx per agent that stops at `limit`, then
 * the first `limit` of them all. As `agent = any(...)` the planner read every runnable task of
 * the agents and sorted them (that index yields no order across several agents) whenever its
 * statistics thought the queue small, as they do right after a burst of enqueues: each claim
 * then cost the queue's depth (1.9 ms at 4,000 queued, and growing), not the few it took. The
 * rows a walk locked beyond the `limit` kept are free again when the claim's statement (or a
 * limited claim's transaction) ends.
 */
export const CLAIM_CANDIDATES = `candidates as (
             select c.id from (select distinct unnest($4::text[])) a(agent)
             cross join lateral (
               select id, priority, run_at from tasks
               where agent = a.agent and status in ${CLAIMABLE} and run_at <= now()
               order by priority desc, run_at, id
               limit $1
               for update skip locked
             ) c
             order by c.priority desc, c.run_at, c.id
             limit $1
           )`;

/**
 * Claims up to `limit` runnable tasks for the agents this worker has (others stay queued), and
 * reads in the same statement what their attempts need: each journal and the policy rows. A
 * `waiting` task is runnable at its wait's deadline (run_at): its run times the wait out. An
 * event that comes while the claim holds its row waits for it and finds it no longer waiting.
 */
export async function claimTasks(
  client: SqlClient,
  worker: string,
  agents: readonly string[],
  limit: number,
  leaseMs: number,
): Promise<ClaimedRow[]> {
  const { rows } = await client.query<ClaimedRow>({
    name: "runtime_claim_tasks",
    text: `with ${CLAIM_CANDIDATES}, ${claimedRowsSql("$2", "$3")}`,
    values: [limit, worker, leaseMs, agents],
  });
  return rows;
}

/** Extends the leases we still hold; returns the ids whose lease we lost. */
export async function heartbeat(
  client: SqlClient,
  worker: string,
  ids: readonly string[],
  leaseMs: number,
): Promise<string[]> {
  if (ids.length === 0) return [];
  const { rows } = await client.query<{ id: string }>({
    name: "runtime_heartbeat",
    text: `update tasks set lease_expires_at = now() + $3 * interval '1 millisecond'
           where id = any($1::uuid[]) and ${leasedTo("$2")}
           returning id`,
    values: [ids, worker, leaseMs],
  });
  const kept = new Set(rows.map((r) => r.id));
  return ids.filter((id) => !kept.has(id));
}

/** Effects this worker is executing stay claimed while it lives. */
export async function extendEffectLeases(
  client: SqlClient,
  worker: string,
  leaseMs: number,
): Promise<void> {
  await client.query({
    name: "runtime_extend_effect_leases",
    text: `update effects set lease_expires_at = now() + $2 * interval '1 millisecond'
           where lease_owner = $1 and status = 'started'`,
    values: [worker, leaseMs],
  });
}

export type FailOutcome =
  | { status: "retry_wait"; runAt: Date }
  | { status: "dead"; reason: DeadReason };

export async function failTask(
  client: SqlClient,
  worker: string,
  id: string,
  outcome: FailOutcome,
  error: JsonValue,
): Promise<boolean> {
  const { rowCount } = await client.query({
    name: "runtime_fail_task",
    text: `update tasks set status = $3, dead_reason = $4, run_at = coalesce($5::timestamptz, run_at),
             last_error = $6, lease_owner = null, lease_expires_at = null,
             version = version + 1, updated_at = now(), status_changed_at = now()
           where id = $1 and ${leasedTo("$2")}`,
    values: [
      id,
      worker,
      outcome.status,
      outcome.status === "dead" ? outcome.reason : null,
      outcome.status === "retry_wait" ? outcome.runAt.toISOString() : null,
      JSON.stringify(error),
    ],
  });
  return rowCount === 1;
}

/**
 * Back to the queue without spending an attempt: a durable sleep, an effect another worker
 * holds, or a worker shutting down and releasing its work.
 */
export async function requeueTask(
  client: SqlClient,
  worker: string,
  id: string,
  runAt: Date | null,
): Promise<boolean> {
  const { rowCount } = await client.query({
    name: "runtime_requeue_task",
    text: `update tasks set status = 'queued', run_at = coalesce($3::timestamptz, now()),
             attempts = greatest(attempts - 1, attempt_base), lease_owner = null, lease_expires_at = null,
             version = version + 1, updated_at = now(), status_changed_at = now()
           where id = $1 and ${leasedTo("$2")}`,
    values: [id, worker, runAt?.toISOString() ?? null],
  });
  return rowCount === 1;
}

/**
 * Wakes idle workers for a task that is runnable now (a hand-back on shutdown), so it does not
 * wait for their next poll. Delivered when the transaction commits.
 */
export async function notifyRunnable(client: SqlClient, id: string): Promise<void> {
  await client.query({
    name: "runtime_notify_runnable",
    text: "select pg_notify($1, $2)",
    values: [TASKS_CHANNEL, id],
  });
}

export type ExpiredLease = {
  id: string;
  agent: string;
  attempts: number;
  attempt_base: number;
  policy: JsonValue | null;
  lease_owner: string;
  traceparent: string | null;
  /** When the crashed attempt claimed the task (its status changed to running then). */
  started_at: Date;
  /** Whether the attempt wrote its start (on its first entry, or as an older attempt.started). */
  start_written: boolean;
};

/**
 * Expired leases of the agents this worker runs: only a worker with an agent's code knows the
 * retry policy that code sets, so only such a worker decides its crashed attempts.
 */
export async function lockExpiredLeases(
  client: SqlClient,
  agents: readonly string[],
  limit: number,
): Promise<ExpiredLease[]> {
  const { rows } = await client.query<ExpiredLease>({
    name: "runtime_lock_expired",
    text: `select id, agent, attempts, attempt_base, policy, lease_owner, traceparent,
                  status_changed_at as started_at,
                  exists (select 1 from ledger_entries e
                           where e.stream = 'task:' || t.id and e.at >= t.status_changed_at - interval '1 minute'
                             and ((e.data->'attemptStarted'->>'attempt')::int = t.attempts
                                  and ${carriesStartClaimedAtText("e.", "t.status_changed_at")}
                                  or e.kind = 'attempt.started' and (e.data->>'attempt')::int = t.attempts
                                     and e.actor = 'worker:' || t.lease_owner)) as start_written
           from tasks t
           where status = 'running' and lease_expires_at < now() and agent = any($1)
           order by lease_expires_at
           limit $2
           for update skip locked`,
    values: [agents, limit],
  });
  return rows;
}

/** Used by the reaper on rows it locked: the lease owner is the crashed worker, not us. */
export async function failExpired(
  client: SqlClient,
  task: ExpiredLease,
  outcome: FailOutcome,
  error: JsonValue,
): Promise<void> {
  await failTask(client, task.lease_owner, task.id, outcome, error);
}

/** Parks the task until a reviewer decides on the gated effect; no attempt is spent. */
export async function parkForApproval(
  client: SqlClient,
  worker: string,
  id: string,
  approval: { key: string; fingerprint: string; tool: string; args: JsonValue; money: boolean },
): Promise<boolean> {
  const { rowCount } = await client.query({
    name: "runtime_park_task",
    text: `update tasks set status = 'awaiting_approval', attempts = greatest(attempts - 1, attempt_base),
             lease_owner = null, lease_expires_at = null,
             version = version + 1, updated_at = now(), status_changed_at = now()
           where id = $1 and ${leasedTo("$2")}`,
    values: [id, worker],
  });
  if (rowCount !== 1) return false;
  await client.query({
    name: "runtime_request_approval",
    text: `insert into approvals (task_id, effect_key, fingerprint, tool, args, money)
           values ($1, $2, $3, $4, $5, $6)
           on conflict (effect_key, fingerprint) do nothing`,
    values: [
      id,
      approval.key,
      approval.fingerprint,
      approval.tool,
      JSON.stringify(approval.args),
      approval.money,
    ],
  });
  return true;
}

/** Tasks running under our lease, by the database's account (after a claim whose answer was lost). */
export async function heldTasks(client: SqlClient, worker: string): Promise<string[]> {
  const { rows } = await client.query<{ id: string }>({
    name: "runtime_held_tasks",
    text: "select id from tasks where lease_owner = $1 and status = 'running'",
    values: [worker],
  });
  return rows.map((r) => r.id);
}

export type RecordedOutcome =
  | "succeeded"
  | "retry_wait"
  | "dead"
  | "requeued"
  | "awaiting_approval";

/**
 * What an attempt's outcome transaction wrote, if it committed: read back after a COMMIT whose
 * answer was lost, so the outcome is reported from the record instead of being written twice.
 */
export async function recordedOutcome(
  client: SqlClient,
  taskId: string,
  attempt: number,
  actor: string,
  /** The claim's time: the start this attempt's first entry carries (attempt-start.ts). */
  claimedAt: Date,
): Promise<RecordedOutcome | undefined> {
  const { rows } = await client.query<{ kind: string }>({
    name: "runtime_recorded_outcome",
    text: `select kind from ledger_entries
           where stream = 'task:' || $1::text and actor = $3 and (data->>'attempt')::int = $2
             -- A hand-back reuses the attempt number: only what followed our start counts, the
             -- entry that carries it included (an outcome can be the attempt's first entry).
             and seq >= (select coalesce(max(seq), 0) from ledger_entries
                         where stream = 'task:' || $1::text and actor = $3
                           and (kind = 'attempt.started'
                                or ${carriesStartClaimedAtText("", "$4::timestamptz")}))
             and kind in ('task.succeeded', 'retry.scheduled', 'task.dead_lettered', 'task.requeued', 'approval.requested')
           order by seq desc limit 1`,
    values: [taskId, attempt, actor, claimedAt.toISOString()],
  });
  const kind = rows[0]?.kind;
  const outcomes: Record<string, RecordedOutcome> = {
    "task.succeeded": "succeeded",
    "retry.scheduled": "retry_wait",
    "task.dead_lettered": "dead",
    "task.requeued": "requeued",
    "approval.requested": "awaiting_approval",
  };
  return kind === undefined ? undefined : outcomes[kind];
}
