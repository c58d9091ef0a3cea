// Prometheus metrics for operators, for a scraper holding an API token with `metrics:read`
// (or a signed-in person with that scope). Names and labels are documented in docs/api.md (Metrics).

import { guardRoute } from "../../../lib/api/guard-route";
import {
  type MetricFamily,
  PROMETHEUS_CONTENT_TYPE,
  renderExposition,
} from "../../../lib/api/prometheus";
import { env } from "../../../lib/env";
import { getPool } from "../../../lib/server/db";
import {
  CLAIM_LATENCY_WINDOW_SECONDS,
  getMetrics,
  type MetricsDto,
} from "../../../lib/server/queries/get-metrics";

export const dynamic = "force-dynamic";

export const GET = guardRoute("metrics:read", async (_request, viewer) => {
  const metrics = await getMetrics(getPool(), viewer, { leaseMs: env().AGENT_LEDGER_LEASE_MS });
  return new Response(renderExposition(families(metrics)), {
    status: 200,
    headers: { "content-type": PROMETHEUS_CONTENT_TYPE, "cache-control": "no-store" },
  });
});

function families(m: MetricsDto): MetricFamily[] {
  const byLabel = (label: string, counts: Record<string, number>) =>
    Object.entries(counts).map(([value, n]) => ({ labels: { [label]: value }, value: n }));
  const perWorker = (value: (w: MetricsDto["workers"][number]) => number) =>
    m.workers.map((w) => ({ labels: { worker: w.worker }, value: value(w) }));
  const perModel = (value: (s: MetricsDto["modelSpendToday"][number]) => number) =>
    m.modelSpendToday.map((s) => ({ labels: { agent: s.agent, model: s.model }, value: value(s) }));
  const tokenTypes = [
    ["input", (s) => s.tokens.input],
    ["output", (s) => s.tokens.output],
    ["cached_input", (s) => s.tokens.cachedInput],
    ["reasoning", (s) => s.tokens.reasoning],
  ] as const satisfies readonly (readonly [
    string,
    (s: MetricsDto["modelSpendToday"][number]) => number,
  ])[];
  return [
    {
      name: "agent_ledger_tasks",
      type: "gauge",
      help: "Tasks by status.",
      samples: byLabel("status", m.tasksByStatus),
    },
    {
      name: "agent_ledger_dead_letters",
      type: "gauge",
      help: "Dead-lettered tasks waiting for a person, by reason.",
      samples: byLabel("reason", m.deadByReason),
    },
    {
      name: "agent_ledger_runnable_tasks",
      type: "gauge",
      help: "Queued or retry_wait tasks whose run_at has passed: a worker could claim them now.",
      samples: [{ value: m.runnable }],
    },
    {
      name: "agent_ledger_oldest_runnable_age_seconds",
      type: "gauge",
      help: "How long the oldest runnable task has waited past its run_at (0 when none waits).",
      samples: [{ value: m.oldestRunnableAgeSeconds }],
    },
    {
      name: "agent_ledger_claim_latency_seconds",
      type: "summary",
      help: `Time from a task's run_at to a worker claiming it, over the claims of the last ${CLAIM_LATENCY_WINDOW_SECONDS} s (NaN when there were none).`,
      samples: [
        {
          quantiles: m.claimLatency.quantiles.map((q) => [q.quantile, q.seconds ?? Number.NaN]),
        },
      ],
    },
    {
      name: "agent_ledger_claim_latency_window_claims",
      type: "gauge",
      help: "Claims the claim latency quantiles were computed from.",
      samples: [{ value: m.claimLatency.claims }],
    },
    {
      name: "agent_ledger_attempts_started_total",
      type: "counter",
      help: "Attempts started (every claim of a task by a worker).",
      samples: [{ value: m.attemptsStarted }],
    },
    {
      name: "agent_ledger_attempt_failures_total",
      type: "counter",
      help: "Failed attempts: cause error (the agent threw) or worker_lost (its lease ran out).",
      samples: [
        { labels: { cause: "error" }, value: m.attemptFailures.error },
        { labels: { cause: "worker_lost" }, value: m.attemptFailures.workerLost },
      ],
    },
    {
      name: "agent_ledger_effects",
      type: "gauge",
      help: "Side effects by status; outcome_unknown: started, and its lease ran out without a result.",
      samples: byLabel("status", m.effectsByOutcome),
    },
    {
      name: "agent_ledger_effect_dedupe_hits_total",
      type: "counter",
      help: "Effects performed again whose key had succeeded: the stored result was returned, nothing acted.",
      samples: [{ value: m.dedupeHits }],
    },
    {
      name: "agent_ledger_worker_running_tasks",
      type: "gauge",
      help: "Running tasks per worker; workers holding no task lease do not appear.",
      samples: perWorker((w) => w.runningTasks),
    },
    {
      name: "agent_ledger_worker_heartbeat_age_seconds",
      type: "gauge",
      help: "Seconds since the worker last renewed or took a task lease (assumes its lease is AGENT_LEDGER_LEASE_MS).",
      samples: perWorker((w) => w.heartbeatAgeSeconds),
    },
    {
      name: "agent_ledger_worker_lease_remaining_seconds",
      type: "gauge",
      help: "Seconds until the worker's newest task lease runs out; negative: it stopped renewing and its tasks will be reaped.",
      samples: perWorker((w) => w.leaseRemainingSeconds),
    },
    {
      name: "agent_ledger_workers_live",
      type: "gauge",
      help: "Fleet workers seen within one lease (the web server's alert worker not counted).",
      samples: [{ value: m.workersLive }],
    },
    {
      name: "agent_ledger_approvals_pending",
      type: "gauge",
      help: "Approval requests waiting for a reviewer.",
      samples: [{ value: m.approvalsPending }],
    },
    {
      name: "agent_ledger_ledger_entries_total",
      type: "counter",
      help: "Entries in the append-only ledger.",
      samples: [{ value: m.ledger.entries }],
    },
    {
      name: "agent_ledger_ledger_streams",
      type: "gauge",
      help: "Ledger streams (one per task, plus system).",
      samples: [{ value: m.ledger.streams }],
    },
    {
      name: "agent_ledger_model_calls_total",
      type: "counter",
      help: "Model calls today (UTC) by agent and model; starts again from 0 at midnight UTC.",
      samples: perModel((s) => s.calls),
    },
    {
      name: "agent_ledger_model_tokens_total",
      type: "counter",
      help: "Model tokens today (UTC) by agent, model and type (cached input and reasoning apart); starts again from 0 at midnight UTC.",
      samples: m.modelSpendToday.flatMap((s) =>
        tokenTypes.map(([type, value]) => ({
          labels: { agent: s.agent, model: s.model, type },
          value: value(s),
        })),
      ),
    },
    {
      name: "agent_ledger_model_cost_total",
      type: "counter",
      help: "Model cost today (UTC) by agent and model, in the price table's currency; starts again from 0 at midnight UTC.",
      samples: perModel((s) => s.cost),
    },
  ];
}
