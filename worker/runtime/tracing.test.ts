// Traces across processes (issue 22): an in-process OTLP/HTTP receiver; the API (this process)
// enqueues with a caller's traceparent; a worker process is killed (SIGKILL) during the model
// call of attempt 1 and a second one runs attempt 2 to the end; the demo payments service runs
// as a process of its own. One trace must arrive: the API span under the caller's, both
// attempts under the API span (the crashed one recorded by the worker that reaped it), the
// model and tool spans under attempt 2, the payments span under the tool's, with the ids the
// ledger holds.
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterAll, describe, expect, it } from "vitest";
import { attemptSpanId } from "../../lib/domain/traceparent";
import { attr, type Received, traceThisProcess } from "../testing/otlp-receiver";

// This process is the web server: its env is read once, so it is set before anything reads it.
const {
  received,
  t,
  otel: OTEL,
  tracing,
} = await traceThisProcess({
  service: "agent-ledger-web",
  database: "tracing",
  batchDelayMs: 100,
});
const tasksRoute = await import("../../app/api/v1/tasks/route");
const { createApiToken } = await import("../../lib/server/commands/api-tokens");
const { operator } = await import("../../lib/domain/access");
const { waitSettled } = await import("../testing/task-report");

const ROOT = path.join(import.meta.dirname, "..", "..");
const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

function exited(child: ChildProcess): Promise<string | number | null> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve(child.signalCode ?? child.exitCode);
  }
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve(signal ?? code)));
}

async function startPayments(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      path.join(ROOT, "worker", "demo", "main.ts"),
      ...["--payments-port", "0", "--smtp-port", "0", "--control-port", "0"],
      ...["--webhook-port", "0"],
    ],
    { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, ...OTEL } },
  );
  children.push(child);
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`the demo receivers exited (${code})`)));
  });
  return { child, url: (JSON.parse(first) as { paymentsUrl: string }).paymentsUrl };
}

function startWorker(paymentsUrl: string, faults: Record<string, number>): ChildProcess {
  const child = spawn(
    process.execPath,
    [
      path.join(ROOT, "bin", "agent-ledger.mjs"),
      "worker",
      "--agents",
      path.join(ROOT, "worker", "testing", "fixtures", "traced-agents.ts"),
    ],
    {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "inherit"],
      env: {
        ...process.env,
        ...OTEL,
        DATABASE_URL: t.appUrl,
        DATABASE_OWNER_URL: "",
        PAYMENTS_URL: paymentsUrl,
        AGENT_LEDGER_LEASE_MS: "1500",
        AGENT_LEDGER_FAULT_POINTS: JSON.stringify(faults),
        LOG_LEVEL: "warn",
      },
    },
  );
  children.push(child);
  return child;
}

async function until<T>(
  what: string | (() => string),
  probe: () => Promise<T | undefined>,
  ms = 30_000,
) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${typeof what === "string" ? what : what()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function enqueue(token: string, body: unknown, traceparent: string) {
  const response = await tasksRoute.POST(
    new Request("http://localhost/api/v1/tasks", {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        traceparent,
      },
      body: JSON.stringify(body),
    }),
    { params: Promise.resolve({}) },
  );
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

describe("OpenTelemetry traces", () => {
  it("follows a task from the API through a crashed attempt and its retry into the payments service", async () => {
    const made = await createApiToken(t.pool, operator("test"), {
      name: "traced",
      scopes: ["tasks:enqueue"],
    });
    if (!made.ok) throw new Error(made.message);
    const payments = await startPayments();

    // Worker 1 publishes the agent, claims the task and dies in the model call.
    const first = startWorker(payments.url, { "model.call": 1 });
    await until("the agent's catalog entry", async () => {
      if (first.exitCode !== null) throw new Error(`worker 1 exited (${first.exitCode})`);
      const { rows } = await t.pool.query(
        "select 1 from agent_catalog where name = 'traced-refund'",
      );
      return rows.length > 0 ? true : undefined;
    });
    const taskId = await enqueue(
      made.value.token,
      { agent: "traced-refund", input: { orderId: "o_42", amountCents: 1500 } },
      `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
    );
    expect(await exited(first)).toBe("SIGKILL");

    // Worker 2 reaps the crashed attempt and runs attempt 2 to the end.
    const second = startWorker(payments.url, {});
    await waitSettled(t.pool, [taskId], 60_000);
    second.kill("SIGTERM");
    payments.child.kill("SIGTERM");
    expect(await exited(second)).toBe(0);
    await exited(payments.child);
    await tracing?.flush();

    const { rows: tasks } = await t.pool.query<{
      status: string;
      attempts: number;
      traceparent: string;
    }>("select status, attempts, traceparent from tasks where id = $1", [taskId]);
    expect(tasks[0]?.status).toBe("succeeded");
    expect(tasks[0]?.attempts).toBe(2);
    const { rows: entries } = await t.pool.query<{
      id: number;
      kind: string;
      key: string | null;
      attempt: number | null;
      started: number | null;
    }>(
      `select id, kind, key, (data->>'attempt')::int as attempt,
              (data->'attemptStarted'->>'attempt')::int as started
         from ledger_entries where task_id = $1 order by id`,
      [taskId],
    );
    const entry = (kind: string, attempt?: number) =>
      entries.find((e) => e.kind === kind && (attempt === undefined || e.attempt === attempt));
    expect(entry("worker.lost", 1)).toBeDefined();

    const seen = () =>
      `the spans; the trace has ${received
        .filter((s) => s.traceId === CALLER_TRACE)
        .map((s) => s.name)
        .join(", ")}`;
    const trace = await until(seen, async () => {
      const ours = received.filter((s) => s.traceId === CALLER_TRACE);
      const names = new Set(ours.map((s) => s.name));
      const attempts = ours.filter((s) => s.name === "agent-ledger.attempt").length;
      const wanted = [
        "POST /api/v1/tasks",
        "agent-ledger.model",
        "agent-ledger.tool refund",
        "payments POST /v1/refunds",
      ];
      return attempts === 2 && wanted.every((n) => names.has(n)) ? ours : undefined;
    });
    const one = (name: string) => {
      const found = trace.filter((s) => s.name === name);
      expect(found, name).toHaveLength(1);
      return found[0] as Received;
    };

    // The API span: the caller's child, and the parent the task stored.
    const api = one("POST /api/v1/tasks");
    expect(api.parentSpanId).toBe(CALLER_SPAN);
    expect(api.service).toBe("agent-ledger-web");
    expect(tasks[0]?.traceparent).toBe(`00-${CALLER_TRACE}-${api.spanId}-01`);

    // Both attempts under it, with the ids the ledger and the runtime derive.
    const attempts = trace
      .filter((s) => s.name === "agent-ledger.attempt")
      .sort(
        (a, b) => Number(attr(a, "agent_ledger.attempt")) - Number(attr(b, "agent_ledger.attempt")),
      );
    expect(attempts.map((s) => attr(s, "agent_ledger.attempt"))).toEqual([1, 2]);
    for (const [i, span] of attempts.entries()) {
      expect(span.parentSpanId).toBe(api.spanId);
      expect(span.spanId).toBe(attemptSpanId(taskId, i + 1));
      expect(attr(span, "agent_ledger.task_id")).toBe(taskId);
      expect(attr(span, "agent_ledger.agent")).toBe("traced-refund");
      expect(span.service).toBe("agent-ledger-worker");
    }
    const [lost, retry] = attempts as [Received, Received];
    expect(attr(lost, "agent_ledger.outcome")).toBe("worker_lost");
    expect(lost.status?.code).toBe(2);
    expect(attr(retry, "agent_ledger.outcome")).toBe("succeeded");
    // The entry that carried attempt 2's start (its first entry, whatever its kind).
    const carrier = entries.filter((e) => e.started === 2);
    expect(carrier).toHaveLength(1);
    expect(attr(retry, "agent_ledger.ledger_entry_id")).toBe(carrier[0]?.id);

    // The model and tool calls of attempt 2, and the provider's span under the tool call.
    const model = one("agent-ledger.model");
    expect(model.parentSpanId).toBe(retry.spanId);
    expect(attr(model, "agent_ledger.ledger_entry_id")).toBe(entry("model.called")?.id);
    const tool = one("agent-ledger.tool refund");
    expect(tool.parentSpanId).toBe(retry.spanId);
    const performed = entry("effect.succeeded");
    expect(performed?.key).toMatch(/^[0-9a-f]{64}$/);
    expect(attr(tool, "agent_ledger.effect_key")).toBe(performed?.key);
    expect(attr(tool, "agent_ledger.effect_outcome")).toBe("executed");
    const provider = one("payments POST /v1/refunds");
    expect(provider.parentSpanId).toBe(tool.spanId);
    expect(provider.service).toBe("agent-ledger-demo");

    // Nothing of this task went to another trace.
    const elsewhere = received.filter(
      (s) => s.traceId !== CALLER_TRACE && attr(s, "agent_ledger.task_id") === taskId,
    );
    expect(elsewhere).toEqual([]);
  }, 120_000);

  it("ignores an invalid traceparent: the API span starts a trace of its own", async () => {
    const made = await createApiToken(t.pool, operator("test"), {
      name: "untraced",
      scopes: ["tasks:enqueue"],
    });
    if (!made.ok) throw new Error(made.message);
    const taskId = await enqueue(
      made.value.token,
      { agent: "traced-refund", input: { orderId: "o_43", amountCents: 100 } },
      `00-${"0".repeat(32)}-${CALLER_SPAN}-01`,
    );
    const { rows } = await t.pool.query<{ traceparent: string | null }>(
      "select traceparent from tasks where id = $1",
      [taskId],
    );
    // Tracing is on here: the API span is a new root, and the task its child.
    expect(rows[0]?.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(rows[0]?.traceparent).not.toContain("0".repeat(32));
  });
});
