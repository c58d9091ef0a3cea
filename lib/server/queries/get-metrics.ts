// What /api/metrics exposes to Prometheus, read in one read-only snapshot so the numbers agree
// with each other. Scraped every 15 s or so: every statement is an aggregate that an index
// bounds or a counter kept by the writes (status_counts, ledger_kind_counts: table-counts.ts),
// and the snapshot has a statement timeout.
import type pg from "pg";
import { withTransaction } from "../../../db/client";
import { requireScope, type Viewer } from "../../domain/access";
import { ATTEMPT_START_KEY, ATTEMPT_STARTED_KIND } from "../../domain/attempt-start";
import {
  type DeadReason,
  EFFECT_STATUSES,
  type EffectStatus,
  TASK_STATUSES,
  type TaskStatus,
} from "../../domain/task-states";
import { countEffects, countLedger, countTasks } from "./table-counts";
import { liveWorkerSql } from "./worker-liveness";

/**
 * Claim latency is read back from the ledger, which keeps no histogram: the quantiles cover
 * the claims of the last 5 minutes (at most the newest 10,000, so a busy queue costs a bounded
 * scrape), like a client library's sliding-window summary.
 */
export const CLAIM_LATENCY_WINDOW_SECONDS = 300;
export const CLAIM_LATENCY_MAX_CLAIMS = 10_000;
export const CLAIM_LATENCY_QUANTILES = [0.5, 0.9, 0.99, 1] as const;

/** A statement slower than this fails the scrape rather than piling up behind the next one. */
const METRICS_STATEMENT_TIMEOUT_MS = 5_000;

/** `started` effects whose lease ran out without a result are counted apart: a person must look. */
export type EffectOutcome = EffectStatus | "outcome_unknown";
export const EFFECT_OUTCOMES: readonly EffectOutcome[] = [...EFFECT_STATUSES, "outcome_unknown"];

export type WorkerMetrics = {
  worker: string;
  runningTasks: number;
  /** Until the worker's newest task lease runs out; negative once it stopped renewing. */
  leaseRemainingSeconds: number;
  /** Since the worker last renewed or took a lease, assuming the lease length given. */
  heartbeatAgeSeconds: number;
};

export type MetricsDto = {
  /** Every status, zeros included. */
  tasksByStatus: Record<TaskStatus, number>;
  /** Every dead-letter reason, zeros included. */
  deadByReason: Record<DeadReason, number>;
  /** Tasks a worker could claim now (queued or retry_wait with run_at passed). */
  runnable: number;
  /** How long the oldest runnable task has waited past its run_at; 0 when none waits. */
  oldestRunnableAgeSeconds: number;
  claimLatency: {
    /** Claims the quantiles were computed from. */
    claims: number;
    /** Seconds per CLAIM_LATENCY_QUANTILES entry; null when the window holds no claim. */
    quantiles: { quantile: number; seconds: number | null }[];
  };
  /**
   * Attempts started: every claim, ever (attempt.started entries, and entries carrying an
   * attempt's start: attempt-start.ts). The ledger is append-only, so these only grow.
   */
  attemptsStarted: number;
  /** attempt.failed (the agent threw) and worker.lost (the lease ran out) entries. */
  attemptFailures: { error: number; workerLost: number };
  effectsByOutcome: Record<EffectOutcome, number>;
  /** effect.deduplicated entries: a key that had succeeded returned its stored result. */
  dedupeHits: number;
  /** Workers holding at least one running task, by id. */
  workers: WorkerMetrics[];
  /**
   * Fleet workers (the `workers` presence table, not the web server's alert worker) running
   * and seen within one lease: three heartbeats missed is not live.
   */
  workersLive: number;
  approvalsPending: number;
  ledger: { entries: number; streams: number };
  /**
   * Model calls, tokens and cost per agent and model so far today (UTC), from the spend
   * counters (spend_daily): they start again from zero at midnight UTC, which Prometheus's
   * rate() and increase() read as a counter reset.
   */
  modelSpendToday: ModelSpendMetrics[];
};

export type ModelSpendMetrics = {
  agent: string;
  model: string;
  calls: number;
  tokens: { input: number; output: number; cachedInput: number; reasoning: number };
  cost: number;
};

export type MetricsOptions = {
  /** The workers' task lease (AGENT_LEDGER_LEASE_MS): a heartbeat sets expiry to now + this. */
  leaseMs: number;
};

const COUNTED_KINDS = [
  "attempt.started",
  "attempt.failed",
  "worker.lost",
  "effect.deduplicated",
] as const;

export async function getMetrics(
  pool: pg.Pool,
  viewer: Viewer | null,
  options: MetricsOptions,
): Promise<MetricsDto> {
  requireScope(viewer, "metrics:read");
  return withTransaction(pool, async (client) => {
    await client.query("set transaction isolation level repeatable read, read only");
    await client.query(`set local statement_timeout = ${METRICS_STATEMENT_TIMEOUT_MS}`);

    // Exact counts that do not scan the tables that grow with history (table-counts.ts).
    const taskCounts = await countTasks(client);

    // Both from tasks_agent_claim_idx (agent, priority desc, run_at, id; queued, retry_wait
    // and waiting rows; 0065 dropped the same index without the agent, an entry per enqueue).
    // The counters say how many are queued; only those not yet due (retry backoffs, delayed
    // tasks) are counted, where counting the due ones read the whole backlog. The index is
    // skipped from one (agent, priority) to the next (dozens of probes at 10M, not a walk of its
    // 50k runnable rows): in each, the not-due tasks are a range of run_at, and the oldest
    // runnable the first queued or retry_wait entry. A plain min(run_at) cannot use an index led
    // by agent and priority and read all 50k (400 ms).
    const queue = await client.query<{ not_due: number; oldest_age: number | null }>(
      `with recursive pairs as (
         (select agent, priority from tasks where status in ('queued', 'retry_wait', 'waiting')
          order by agent, priority desc limit 1)
         union all
         select n.agent, n.priority from pairs p cross join lateral (
           (select t.agent, t.priority from tasks t
             where t.status in ('queued', 'retry_wait', 'waiting') and t.agent = p.agent
               and t.priority < p.priority
             order by t.agent, t.priority desc limit 1)
           union all
           (select t.agent, t.priority from tasks t
             where t.status in ('queued', 'retry_wait', 'waiting') and t.agent > p.agent
             order by t.agent, t.priority desc limit 1)
           limit 1
         ) n
       )
       select coalesce(sum((select count(*) from tasks t
                             where t.agent = p.agent and t.priority = p.priority and t.run_at > now()
                               and t.status in ('queued', 'retry_wait'))), 0)::int as not_due,
              extract(epoch from now() - min((select min(t.run_at) from tasks t
                where t.agent = p.agent and t.priority = p.priority
                  and t.status in ('queued', 'retry_wait'))))::float8 as oldest_age
         from pairs p`,
    );

    // Wait = the claim's time (an attempt.started entry's, or the attemptStarted.at folded into
    // an attempt's first entry) minus the run_at it was claimed at. A later
    // retry, requeue or review rewrites run_at to a time after that claim, so an entry whose
    // task's run_at is now later than the entry belongs to an earlier claim whose run_at is
    // gone: it is left out (the 1 ms allows for `at` being rounded to milliseconds).
    const latency = await client.query<{ claims: number; quantiles: number[] | null }>({
      text: `with recent as (
               select at, task_id from (
                 (select e.at, e.task_id from ledger_entries e
                   where e.kind = '${ATTEMPT_STARTED_KIND}' and e.at > now() - $1 * interval '1 second'
                   order by e.at desc limit $2)
                 union all
                 (select (e.data->'${ATTEMPT_START_KEY}'->>'at')::timestamptz, e.task_id from ledger_entries e
                   where e.data ? '${ATTEMPT_START_KEY}' and e.at > now() - $1 * interval '1 second'
                   order by e.at desc limit $2)
               ) claims
               order by at desc
               limit $2
             )
             select count(*)::int as claims,
                    percentile_cont($3::float8[]) within group (
                      order by greatest(0, extract(epoch from r.at - t.run_at))::float8
                    ) as quantiles
               from recent r join tasks t on t.id = r.task_id
              where t.run_at <= r.at + interval '1 millisecond'`,
      values: [CLAIM_LATENCY_WINDOW_SECONDS, CLAIM_LATENCY_MAX_CLAIMS, CLAIM_LATENCY_QUANTILES],
    });

    // Kept per kind by a trigger in the appending transactions (ledger_kind_counts): counting
    // the entries instead read every attempt.started ever (139k at 1M entries, 60-120 ms).
    // Attempts started: the attempt.started entries of older ledgers, and the entries of any kind
    // carrying an attempt's start (ledger_kind_counts.attempts, migration 0057).
    const kindRows = await client.query<{ kind: string; n: number }>({
      text: `select kind, sum(entries)::float8 as n from ledger_kind_counts
              where kind = any($1::text[]) group by kind
             union all
             select '+attempts', coalesce(sum(attempts), 0)::float8 from ledger_kind_counts`,
      values: [[...COUNTED_KINDS]],
    });

    const effectCounts = await countEffects(client);

    // Workers keep no row of their own: a heartbeat renews the leases of the tasks a worker
    // runs (task-sql.ts `heartbeat`), so the newest lease per owner says when it last beat.
    // tasks_lease_idx holds exactly the running rows.
    const workerRows = await client.query<{
      worker: string;
      n: number;
      remaining: number;
      age: number;
    }>({
      text: `select lease_owner as worker, count(*)::int as n,
                    extract(epoch from max(lease_expires_at) - now())::float8 as remaining,
                    extract(epoch from now() - (max(lease_expires_at) - $1 * interval '1 millisecond'))::float8 as age
               from tasks where status = 'running'
              group by lease_owner order by lease_owner collate "C"`,
      values: [options.leaseMs],
    });

    const live = await client.query<{ n: number }>({
      text: `select count(*)::int as n from workers where ${liveWorkerSql("$1")}`,
      values: [options.leaseMs],
    });

    const pending = await client.query<{ n: number }>(
      "select count(*)::int as n from approvals where status = 'pending'",
    );

    const ledger = await countLedger(client);

    // Today's rows of the counters each model call adds to (one per agent, model and writing
    // backend): the primary key leads with the day, so this reads today's few rows only.
    const spend = await client.query<{
      agent: string;
      model: string;
      calls: number;
      input: number;
      output: number;
      cached: number;
      reasoning: number;
      cost: number;
    }>(
      `select agent, model, sum(calls)::float8 as calls, sum(input_tokens)::float8 as input,
              sum(output_tokens)::float8 as output, sum(cached_input_tokens)::float8 as cached,
              sum(reasoning_tokens)::float8 as reasoning, sum(cost)::float8 as cost
         from spend_daily where day = (now() at time zone 'UTC')::date
        group by agent, model order by agent collate "C", model collate "C"`,
    );

    const tasksByStatus = Object.fromEntries(
      TASK_STATUSES.map((s) => [s, taskCounts.byStatus[s].count]),
    ) as Record<TaskStatus, number>;
    const { byStatus: effectsByStatus, outcomeUnknown } = effectCounts;
    const effectsByOutcome: Record<EffectOutcome, number> = {
      // `started` here is in flight with a live lease; the rest of them are outcome_unknown.
      started: Math.max(0, effectsByStatus.started.count - outcomeUnknown),
      succeeded: effectsByStatus.succeeded.count,
      failed: effectsByStatus.failed.count,
      outcome_unknown: outcomeUnknown,
    };
    const kinds = new Map(kindRows.rows.map((r) => [r.kind, r.n]));
    const latencyRow = latency.rows[0];
    const queueRow = queue.rows[0];

    return {
      tasksByStatus,
      deadByReason: taskCounts.deadByReason,
      runnable:
        taskCounts.byStatus.queued.count +
        taskCounts.byStatus.retry_wait.count -
        (queueRow?.not_due ?? 0),
      oldestRunnableAgeSeconds: Math.max(0, queueRow?.oldest_age ?? 0),
      claimLatency: {
        claims: latencyRow?.claims ?? 0,
        quantiles: CLAIM_LATENCY_QUANTILES.map((quantile, i) => ({
          quantile,
          seconds: latencyRow?.quantiles?.[i] ?? null,
        })),
      },
      attemptsStarted: (kinds.get("attempt.started") ?? 0) + (kinds.get("+attempts") ?? 0),
      attemptFailures: {
        error: kinds.get("attempt.failed") ?? 0,
        workerLost: kinds.get("worker.lost") ?? 0,
      },
      effectsByOutcome,
      dedupeHits: kinds.get("effect.deduplicated") ?? 0,
      workers: workerRows.rows.map((r) => ({
        worker: r.worker,
        runningTasks: r.n,
        leaseRemainingSeconds: r.remaining,
        heartbeatAgeSeconds: r.age,
      })),
      workersLive: live.rows[0]?.n ?? 0,
      approvalsPending: pending.rows[0]?.n ?? 0,
      ledger: { entries: ledger.entries.count, streams: ledger.streams.count },
      modelSpendToday: spend.rows.map((r) => ({
        agent: r.agent,
        model: r.model,
        calls: r.calls,
        tokens: { input: r.input, output: r.output, cachedInput: r.cached, reasoning: r.reasoning },
        cost: r.cost,
      })),
    };
  });
}
