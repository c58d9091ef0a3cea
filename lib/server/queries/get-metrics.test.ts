// Metrics against real rows: staged tasks, effects, approvals and ledger entries give exact
// values, read once through getMetrics and once as the Prometheus text GET /api/metrics serves
// (parsed here, independently of the writer), with the route's 200/401/403.
import { afterAll, describe, expect, it } from "vitest";
import { withTransaction } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testTokenViewer, testViewer } from "../../auth/testing";
import { AuthError, operator } from "../../domain/access";
import { createApiToken } from "../commands/api-tokens";
import { appendLedger, type NewLedgerEntry, taskStream } from "../ledger/append-ledger";
import { CLAIM_LATENCY_QUANTILES, getMetrics, type MetricsDto } from "./get-metrics";

const t = await setUpTestDatabase("metrics");

// lib/server/db.ts and lib/env.ts read the environment once: set it before the route loads them.
const previousEnv = { ...process.env };
process.env.DATABASE_URL = t.appUrl;
process.env.AGENT_LEDGER_LEASE_MS = "30000";
process.env.AUTH_SECRET ??= "metrics-test-secret-metrics-test-secret";
const route = await import("../../../app/api/metrics/route");
afterAll(async () => {
  process.env = previousEnv;
  const { getPool } = await import("../db");
  await getPool().end();
});

const metricsReader = testTokenViewer(["metrics:read"]);
const LEASE = { leaseMs: 30_000 };
const hex = (c: string) => c.repeat(64);

type Series = Map<string, number>;

/**
 * A reader of the 0.0.4 text format written for this test: one HELP and one TYPE per family
 * before its samples, label values unescaped, each series once. Keys are `name{a="x",b="y"}`
 * with labels sorted and values unescaped.
 */
function parseExposition(text: string): { series: Series; types: Map<string, string> } {
  expect(text.endsWith("\n")).toBe(true);
  const series: Series = new Map();
  const types = new Map<string, string>();
  const helps = new Set<string>();
  for (const line of text.slice(0, -1).split("\n")) {
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (meta) {
      const [, what, name = "", rest = ""] = meta;
      if (what === "HELP") {
        expect(helps.has(name), `HELP ${name} once`).toBe(false);
        helps.add(name);
      } else {
        expect(types.has(name), `TYPE ${name} once`).toBe(false);
        expect(["counter", "gauge", "summary", "histogram", "untyped"]).toContain(rest);
        types.set(name, rest);
      }
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample) throw new Error(`not a sample line: ${line}`);
    const [, name = "", rawLabels = "", rawValue = ""] = sample;
    expect(types.has(name), `${name} has a TYPE before its samples`).toBe(true);
    const labels: [string, string][] = [];
    let rest = rawLabels;
    while (rest.length > 0) {
      const m = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/.exec(rest);
      if (!m) throw new Error(`bad labels: ${rawLabels}`);
      const value = (m[2] ?? "").replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
      labels.push([m[1] ?? "", value]);
      rest = rest.slice(m[0].length);
    }
    labels.sort(([a], [b]) => a.localeCompare(b));
    const key = `${name}{${labels.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(",")}}`;
    expect(series.has(key), `${key} once`).toBe(false);
    const value =
      rawValue === "NaN" ? Number.NaN : rawValue === "+Inf" ? Infinity : Number(rawValue);
    expect(Number.isNaN(value) && rawValue !== "NaN").toBe(false);
    series.set(key, value);
  }
  expect([...helps].sort()).toEqual([...types.keys()].sort());
  return { series, types };
}

async function scrape(token?: string): Promise<Response> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  return route.GET(new Request("http://localhost/api/metrics", { headers }), {
    params: Promise.resolve({}),
  });
}

async function token(name: string, scopes: ("metrics:read" | "tasks:read")[]): Promise<string> {
  const created = await createApiToken(t.pool, operator("user:admin@example.com"), {
    name,
    scopes,
  });
  if (!created.ok) throw new Error(created.message);
  return created.value.token;
}

async function append(taskId: string, entries: Omit<NewLedgerEntry, "actor" | "taskId">[]) {
  await withTransaction(t.pool, (client) =>
    appendLedger(
      client,
      taskStream(taskId),
      entries.map((e) => ({ ...e, actor: "worker:w", taskId })),
    ),
  );
}

/** Makes the task look claimed `waitSeconds` after it became runnable, by its newest claim. */
async function claimedAfter(taskId: string, waitSeconds: number): Promise<void> {
  await append(taskId, [{ kind: "attempt.started", data: { attempt: 1 } }]);
  await t.pool.query(
    `update tasks set run_at = (select max(at) from ledger_entries
                                  where task_id = $1 and kind = 'attempt.started')
                               - $2 * interval '1 second'
      where id = $1`,
    [taskId, waitSeconds],
  );
}

/** The same, the claim's start folded into the attempt's first entry (as the runtime writes it now). */
async function claimedAfterFolded(taskId: string, waitSeconds: number): Promise<void> {
  const at = new Date(Date.now() - 500).toISOString();
  await append(taskId, [
    {
      kind: "effect.started",
      data: { attempt: 1, attemptStarted: { attempt: 1, agent: "a", at } },
    },
  ]);
  await t.pool.query(
    "update tasks set run_at = $2::timestamptz - $3 * interval '1 second' where id = $1",
    [taskId, at, waitSeconds],
  );
}

let staged: MetricsDto;
let ledgerEntries = 0;

describe("getMetrics", () => {
  it("reports every status, reason and outcome as zero on an empty database", async () => {
    const m = await getMetrics(t.pool, metricsReader, LEASE);
    expect(Object.values(m.tasksByStatus)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(Object.keys(m.tasksByStatus)).toEqual([
      "queued",
      "running",
      "retry_wait",
      "awaiting_approval",
      "waiting",
      "dead",
      "succeeded",
      "rejected",
      "cancelled",
    ]);
    expect(m.deadByReason).toEqual({
      exhausted: 0,
      non_retryable: 0,
      timeout: 0,
      budget: 0,
      outcome_unknown: 0,
      payload_mismatch: 0,
    });
    expect(m.effectsByOutcome).toEqual({ started: 0, succeeded: 0, failed: 0, outcome_unknown: 0 });
    expect(m.claimLatency).toEqual({
      claims: 0,
      quantiles: CLAIM_LATENCY_QUANTILES.map((quantile) => ({ quantile, seconds: null })),
    });
    expect(m).toMatchObject({
      runnable: 0,
      oldestRunnableAgeSeconds: 0,
      attemptsStarted: 0,
      attemptFailures: { error: 0, workerLost: 0 },
      dedupeHits: 0,
      workers: [],
      workersLive: 0,
      approvalsPending: 0,
      ledger: { entries: 0, streams: 0 },
      modelSpendToday: [],
    });
  });

  it("counts fleet workers seen within a lease, not stopped, silent or the web alert worker", async () => {
    await t.pool.query(
      `insert into workers (id, host, pid, role, agents, last_seen_at, stopped_at) values
         ('m-live', 'h', 1, 'worker', '{}', now(), null),
         ('m-silent', 'h', 2, 'worker', '{}', now() - interval '1 hour', null),
         ('m-stopped', 'h', 3, 'worker', '{}', now(), now()),
         ('m-web', 'h', 4, 'alerts', '{alert-delivery}', now(), null)`,
    );
    try {
      const m = await getMetrics(t.pool, testViewer("admin"), LEASE);
      expect(m.workersLive).toBe(1);
    } finally {
      await t.pool.query("delete from workers where id like 'm-%'");
    }
  });

  it("refuses a viewer without metrics:read", async () => {
    await expect(getMetrics(t.pool, testViewer("reviewer"), LEASE)).rejects.toThrow(AuthError);
    await expect(getMetrics(t.pool, null, LEASE)).rejects.toMatchObject({ status: 401 });
    // ops holds metrics:read through its role.
    await expect(getMetrics(t.pool, testViewer("ops"), LEASE)).resolves.toBeDefined();
  });

  it("counts staged tasks, effects, approvals, claims and ledger entries exactly", async () => {
    const { rows } = await t.pool.query<{ id: string; name: string }>(
      `insert into tasks (agent, input, status, dead_reason, run_at, lease_owner, lease_expires_at, attempts, created_by)
       values ('a', '"oldest"', 'queued', null, now() - interval '40 seconds', null, null, 0, 't'),
              ('a', '"later"', 'queued', null, now() + interval '1 hour', null, null, 0, 't'),
              ('a', '"retry"', 'retry_wait', null, now() - interval '5 seconds', null, null, 1, 't'),
              ('a', '"a1"', 'running', null, now(), 'worker-a', now() + interval '20 seconds', 1, 't'),
              ('a', '"a2"', 'running', null, now(), 'worker-a', now() + interval '10 seconds', 1, 't'),
              ('a', '"b1"', 'running', null, now(), 'worker "b"\\', now() - interval '5 seconds', 2, 't'),
              ('a', '"d1"', 'dead', 'budget', now(), null, null, 1, 't'),
              ('a', '"d2"', 'dead', 'budget', now(), null, null, 1, 't'),
              ('a', '"d3"', 'dead', 'outcome_unknown', now(), null, null, 1, 't'),
              ('a', '"gated"', 'awaiting_approval', null, now(), null, null, 0, 't'),
              ('a', '"c1"', 'cancelled', null, now(), null, null, 0, 't'),
              ('a', '"w1"', 'succeeded', null, now(), null, null, 1, 't'),
              ('a', '"w2"', 'succeeded', null, now(), null, null, 1, 't'),
              ('a', '"w3"', 'succeeded', null, now(), null, null, 1, 't'),
              ('a', '"w4"', 'succeeded', null, now(), null, null, 1, 't'),
              ('a', '"retried"', 'succeeded', null, now(), null, null, 2, 't')
       returning id, input #>> '{}' as name`,
    );
    const id = (name: string) => {
      const row = rows.find((r) => r.name === name);
      if (!row) throw new Error(`no task ${name}`);
      return row.id;
    };

    await t.pool.query(
      `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status, lease_owner, lease_expires_at)
       values ($2, $1, 1, 'email', '{}', '{}', $2, 'started', 'worker-a', now() + interval '1 minute'),
              ($3, $1, 2, 'email', '{}', '{}', $3, 'started', 'w-gone', now() - interval '1 minute'),
              ($4, $1, 3, 'email', '{}', '{}', $4, 'started', null, null),
              ($5, $1, 4, 'email', '{}', '{}', $5, 'succeeded', null, null),
              ($6, $1, 5, 'email', '{}', '{}', $6, 'succeeded', null, null),
              ($7, $1, 6, 'email', '{}', '{}', $7, 'failed', null, null)`,
      [id("d3"), hex("a"), hex("b"), hex("c"), hex("d"), hex("e"), hex("f")],
    );
    await t.pool.query(
      `insert into approvals (task_id, effect_key, fingerprint, tool, args, status, decided_by, decided_at, money, first_approved_by)
       values ($1, $2, $2, 'refund', '{}', 'pending', null, null, false, null),
              ($1, $3, $3, 'refund', '{}', 'pending', null, null, true, 'user:r1@example.com'),
              ($1, $4, $4, 'refund', '{}', 'approved', 'user:r1@example.com', now(), false, null),
              ($1, $5, $5, 'refund', '{}', 'rejected', 'user:r1@example.com', now(), false, null)`,
      [id("gated"), hex("1"), hex("2"), hex("3"), hex("4")],
    );

    // Claims 1, 2, 3 and 10 s after run_at. "retried" was claimed and failed, and its run_at
    // was then moved past that claim (as a retry does): that claim's wait is gone, left out.
    // Two of them in the older form (attempt.started), two folded into a first entry.
    await claimedAfter(id("w1"), 1);
    await claimedAfterFolded(id("w2"), 2);
    await claimedAfter(id("w3"), 3);
    await claimedAfterFolded(id("w4"), 10);
    await append(id("retried"), [
      { kind: "attempt.started", data: { attempt: 1 } },
      { kind: "attempt.failed", data: { attempt: 1 } },
    ]);
    await t.pool.query("update tasks set run_at = now() + interval '1 hour' where id = $1", [
      id("retried"),
    ]);
    await append(id("b1"), [
      { kind: "attempt.started", data: { attempt: 1 } },
      { kind: "attempt.failed", data: { attempt: 1 } },
      { kind: "worker.lost", data: { attempt: 2 } },
      { kind: "effect.deduplicated", data: {} },
      { kind: "effect.deduplicated", data: {} },
    ]);
    await append(id("a1"), [
      { kind: "task.enqueued", data: {} },
      { kind: "effect.deduplicated", data: {} },
    ]);
    // b1's claim waited 7 s.
    await t.pool.query(
      `update tasks set run_at = (select min(at) from ledger_entries where task_id = $1) - interval '7 seconds'
        where id = $1`,
      [id("b1")],
    );
    ledgerEntries = 4 + 2 + 5 + 2;

    // Today's spend counters, two writing backends for one agent and model; yesterday's row
    // is not today's.
    await t.pool.query(
      `insert into spend_daily (day, agent, model, backend, calls, input_tokens, output_tokens,
                                cached_input_tokens, reasoning_tokens, cost)
       values ((now() at time zone 'UTC')::date, 'a', 'gpt-x', 1, 2, 100, 20, 10, 5, 0.25),
              ((now() at time zone 'UTC')::date, 'a', 'gpt-x', 2, 1, 50, 10, 0, 0, 0.125),
              ((now() at time zone 'UTC')::date, 'b', 'claude-y', 1, 1, 7, 3, 0, 1, 0.5),
              ((now() at time zone 'UTC')::date - 1, 'a', 'gpt-x', 1, 9, 900, 90, 0, 0, 9)`,
    );

    const m = await getMetrics(t.pool, metricsReader, LEASE);
    staged = m;
    expect(m.tasksByStatus).toEqual({
      queued: 2,
      running: 3,
      retry_wait: 1,
      awaiting_approval: 1,
      waiting: 0,
      dead: 3,
      succeeded: 5,
      rejected: 0,
      cancelled: 1,
    });
    expect(m.deadByReason).toEqual({
      exhausted: 0,
      non_retryable: 0,
      timeout: 0,
      budget: 2,
      outcome_unknown: 1,
      payload_mismatch: 0,
    });
    expect(m.runnable).toBe(2);
    // Waited since 40 s before staging; the test itself takes a few seconds at most.
    expect(m.oldestRunnableAgeSeconds).toBeGreaterThanOrEqual(40);
    expect(m.oldestRunnableAgeSeconds).toBeLessThan(100);

    // Waits 1, 2, 3, 7, 10 s; percentile_cont interpolates between neighbours.
    expect(m.claimLatency.claims).toBe(5);
    const q = new Map(m.claimLatency.quantiles.map((x) => [x.quantile, x.seconds]));
    expect(q.get(0.5)).toBeCloseTo(3, 6);
    expect(q.get(0.9)).toBeCloseTo(7 + 0.6 * 3, 6);
    expect(q.get(0.99)).toBeCloseTo(7 + 0.96 * 3, 6);
    expect(q.get(1)).toBeCloseTo(10, 6);

    expect(m.attemptsStarted).toBe(6);
    expect(m.attemptFailures).toEqual({ error: 2, workerLost: 1 });
    expect(m.dedupeHits).toBe(3);
    expect(m.effectsByOutcome).toEqual({
      started: 1,
      succeeded: 2,
      failed: 1,
      outcome_unknown: 2,
    });
    expect(m.approvalsPending).toBe(2);
    expect(m.ledger).toEqual({ entries: ledgerEntries, streams: 7 });

    // Ordered by id, bytewise: a space sorts before a hyphen.
    expect(m.workers.map((w) => [w.worker, w.runningTasks])).toEqual([
      ['worker "b"\\', 1],
      ["worker-a", 2],
    ]);
    const [b, a] = m.workers;
    // worker-a's newest lease ends 20 s after staging: renewed 10 s before it (30 s lease).
    expect(a?.leaseRemainingSeconds).toBeGreaterThan(10);
    expect(a?.leaseRemainingSeconds).toBeLessThanOrEqual(20);
    expect((a?.leaseRemainingSeconds ?? 0) + (a?.heartbeatAgeSeconds ?? 0)).toBeCloseTo(30, 6);
    // worker "b" stopped renewing: its lease ran out 5 s before staging.
    expect(b?.leaseRemainingSeconds).toBeLessThanOrEqual(-5);
    expect(b?.heartbeatAgeSeconds).toBeGreaterThanOrEqual(35);

    expect(m.modelSpendToday).toEqual([
      {
        agent: "a",
        model: "gpt-x",
        calls: 3,
        tokens: { input: 150, output: 30, cachedInput: 10, reasoning: 5 },
        cost: 0.375,
      },
      {
        agent: "b",
        model: "claude-y",
        calls: 1,
        tokens: { input: 7, output: 3, cachedInput: 0, reasoning: 1 },
        cost: 0.5,
      },
    ]);
  });
});

describe("GET /api/metrics", () => {
  it("serves the staged numbers as Prometheus text to a metrics:read token", async () => {
    const reader = await token("scraper", ["metrics:read"]);
    const response = await scrape(reader);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const { series, types } = parseExposition(await response.text());

    expect(Object.fromEntries(types)).toEqual({
      agent_ledger_tasks: "gauge",
      agent_ledger_dead_letters: "gauge",
      agent_ledger_runnable_tasks: "gauge",
      agent_ledger_oldest_runnable_age_seconds: "gauge",
      agent_ledger_claim_latency_seconds: "summary",
      agent_ledger_claim_latency_window_claims: "gauge",
      agent_ledger_attempts_started_total: "counter",
      agent_ledger_attempt_failures_total: "counter",
      agent_ledger_effects: "gauge",
      agent_ledger_effect_dedupe_hits_total: "counter",
      agent_ledger_worker_running_tasks: "gauge",
      agent_ledger_worker_heartbeat_age_seconds: "gauge",
      agent_ledger_worker_lease_remaining_seconds: "gauge",
      agent_ledger_workers_live: "gauge",
      agent_ledger_approvals_pending: "gauge",
      agent_ledger_ledger_entries_total: "counter",
      agent_ledger_ledger_streams: "gauge",
      agent_ledger_model_calls_total: "counter",
      agent_ledger_model_tokens_total: "counter",
      agent_ledger_model_cost_total: "counter",
    });

    // Everything but the clock-dependent series, exactly.
    const timed = /oldest_runnable_age|heartbeat_age|lease_remaining|claim_latency_seconds/;
    const exact = Object.fromEntries([...series].filter(([k]) => !timed.test(k)));
    expect(exact).toEqual({
      'agent_ledger_tasks{status="queued"}': 2,
      'agent_ledger_tasks{status="running"}': 3,
      'agent_ledger_tasks{status="retry_wait"}': 1,
      'agent_ledger_tasks{status="awaiting_approval"}': 1,
      'agent_ledger_tasks{status="waiting"}': 0,
      'agent_ledger_tasks{status="dead"}': 3,
      'agent_ledger_tasks{status="succeeded"}': 5,
      'agent_ledger_tasks{status="rejected"}': 0,
      'agent_ledger_tasks{status="cancelled"}': 1,
      'agent_ledger_dead_letters{reason="exhausted"}': 0,
      'agent_ledger_dead_letters{reason="non_retryable"}': 0,
      'agent_ledger_dead_letters{reason="timeout"}': 0,
      'agent_ledger_dead_letters{reason="budget"}': 2,
      'agent_ledger_dead_letters{reason="outcome_unknown"}': 1,
      'agent_ledger_dead_letters{reason="payload_mismatch"}': 0,
      "agent_ledger_runnable_tasks{}": 2,
      "agent_ledger_claim_latency_window_claims{}": 5,
      "agent_ledger_attempts_started_total{}": 6,
      'agent_ledger_attempt_failures_total{cause="error"}': 2,
      'agent_ledger_attempt_failures_total{cause="worker_lost"}': 1,
      'agent_ledger_effects{status="started"}': 1,
      'agent_ledger_effects{status="succeeded"}': 2,
      'agent_ledger_effects{status="failed"}': 1,
      'agent_ledger_effects{status="outcome_unknown"}': 2,
      "agent_ledger_effect_dedupe_hits_total{}": 3,
      'agent_ledger_worker_running_tasks{worker="worker-a"}': 2,
      // The label value round-trips through escaping (quote and backslash).
      'agent_ledger_worker_running_tasks{worker="worker \\"b\\"\\\\"}': 1,
      "agent_ledger_workers_live{}": 0,
      "agent_ledger_approvals_pending{}": 2,
      // The scraper token's token.created entry went to the new system stream.
      "agent_ledger_ledger_entries_total{}": ledgerEntries + 1,
      "agent_ledger_ledger_streams{}": 8,
      'agent_ledger_model_calls_total{agent="a",model="gpt-x"}': 3,
      'agent_ledger_model_calls_total{agent="b",model="claude-y"}': 1,
      'agent_ledger_model_tokens_total{agent="a",model="gpt-x",type="input"}': 150,
      'agent_ledger_model_tokens_total{agent="a",model="gpt-x",type="output"}': 30,
      'agent_ledger_model_tokens_total{agent="a",model="gpt-x",type="cached_input"}': 10,
      'agent_ledger_model_tokens_total{agent="a",model="gpt-x",type="reasoning"}': 5,
      'agent_ledger_model_tokens_total{agent="b",model="claude-y",type="input"}': 7,
      'agent_ledger_model_tokens_total{agent="b",model="claude-y",type="output"}': 3,
      'agent_ledger_model_tokens_total{agent="b",model="claude-y",type="cached_input"}': 0,
      'agent_ledger_model_tokens_total{agent="b",model="claude-y",type="reasoning"}': 1,
      'agent_ledger_model_cost_total{agent="a",model="gpt-x"}': 0.375,
      'agent_ledger_model_cost_total{agent="b",model="claude-y"}': 0.5,
    });
    expect(series.get('agent_ledger_claim_latency_seconds{quantile="0.5"}')).toBeCloseTo(3, 6);
    expect(series.get('agent_ledger_claim_latency_seconds{quantile="1"}')).toBeCloseTo(10, 6);
    expect(series.get("agent_ledger_oldest_runnable_age_seconds{}")).toBeGreaterThanOrEqual(
      staged.oldestRunnableAgeSeconds,
    );
    expect(
      series.get('agent_ledger_worker_lease_remaining_seconds{worker="worker-a"}'),
    ).toBeLessThanOrEqual(staged.workers[1]?.leaseRemainingSeconds ?? 0);
    expect(
      series.get('agent_ledger_worker_heartbeat_age_seconds{worker="worker \\"b\\"\\\\"}'),
    ).toBeGreaterThanOrEqual(35);
  });

  it("answers 401 without a valid credential and 403 without the scope, as problem+json", async () => {
    for (const response of [await scrape(), await scrape("alt_not-a-real-token")]) {
      expect(response.status).toBe(401);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect(response.headers.get("www-authenticate")).toContain("Bearer");
      expect(await response.json()).toMatchObject({
        status: 401,
        type: expect.stringMatching(/unauthenticated$/),
      });
    }
    const reader = await token("task-reader", ["tasks:read"]);
    const forbidden = await scrape(reader);
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get("content-type")).toBe("application/problem+json");
    const body = await forbidden.json();
    expect(body).toMatchObject({
      status: 403,
      detail: expect.stringContaining("may not do this (needs metrics:read)"),
    });
    expect(JSON.stringify(body)).not.toContain("agent_ledger_tasks");
  });
});

describe("claim latency window", () => {
  it("leaves out claims older than five minutes", async () => {
    const before = await getMetrics(t.pool, metricsReader, LEASE);
    const { rows } = await t.pool.query<{ id: string }>(
      `insert into tasks (agent, input, status, run_at, created_by)
       values ('a', '"old"', 'succeeded', now() - interval '20 minutes', 't') returning id`,
    );
    const taskId = rows[0]?.id ?? "";
    await append(taskId, [{ kind: "task.enqueued", data: {} }]);
    // A claim ten minutes old, written straight into the table (appendLedger stamps the
    // database clock, and a test cannot wait five minutes). It breaks this stream's chain,
    // which no assertion here reads.
    await t.pool.query(
      `insert into ledger_entries (stream, seq, at, kind, actor, task_id, data, hash, month)
       select $1, 2, now() - interval '10 minutes', 'attempt.started', 'worker:w', $2, '{}', $3, month
         from ledger_streams where stream = $1`,
      [taskStream(taskId), taskId, hex("0")],
    );
    const after = await getMetrics(t.pool, metricsReader, LEASE);
    expect(after.attemptsStarted).toBe(before.attemptsStarted + 1);
    expect(after.claimLatency).toEqual(before.claimLatency);
  });
});

describe("oldest runnable task", () => {
  it("is the oldest queued or retry_wait task of any agent and priority, not a waiting one's deadline", async () => {
    await t.pool.query(
      `insert into tasks (agent, input, status, run_at, priority, created_by) values
         ('a', '"urgent"', 'queued', now() - interval '10 seconds', 7, 't'),
         ('a', '"low"', 'retry_wait', now() - interval '3 hours', -5, 't'),
         ('a', '"parked"', 'waiting', now() - interval '5 hours', -5, 't'),
         ('a', '"mid"', 'queued', now() - interval '1 hour', 0, 't'),
         ('b', '"later"', 'queued', now() + interval '1 hour', 9, 't'),
         ('c', '"parked only"', 'waiting', now() - interval '6 hours', 0, 't')`,
    );
    const { rows } = await t.pool.query<{ age: number; not_due: number }>(
      `select extract(epoch from now() - min(run_at))::float8 as age,
              (count(*) filter (where run_at > now()))::int as not_due
         from tasks where status in ('queued', 'retry_wait')`,
    );
    const m = await getMetrics(t.pool, metricsReader, LEASE);
    expect(rows[0]?.age).toBeGreaterThanOrEqual(3 * 3600);
    expect(rows[0]?.age).toBeLessThan(5 * 3600);
    expect(m.oldestRunnableAgeSeconds).toBeCloseTo(rows[0]?.age ?? 0, 0);
    // The one not yet due is another agent's, at a priority no other task has.
    const { rows: counts } = await t.pool.query<{ n: number }>(
      "select count(*)::int as n from tasks where status in ('queued', 'retry_wait')",
    );
    expect(rows[0]?.not_due).toBeGreaterThanOrEqual(1);
    expect(m.runnable).toBe((counts[0]?.n ?? 0) - (rows[0]?.not_due ?? 0));

    // The oldest in another agent's queue, at a priority between the others.
    await t.pool.query(
      `insert into tasks (agent, input, status, run_at, priority, created_by)
       values ('b', '"oldest"', 'queued', now() - interval '4 hours', 3, 't')`,
    );
    const again = await getMetrics(t.pool, metricsReader, LEASE);
    expect(again.oldestRunnableAgeSeconds).toBeGreaterThanOrEqual(4 * 3600);
    expect(again.oldestRunnableAgeSeconds).toBeLessThan(5 * 3600);
  });
});
