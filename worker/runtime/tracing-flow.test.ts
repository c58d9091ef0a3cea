// Traces of what happens between and around attempts (issue 22): a task enqueued with a caller's
// traceparent sleeps, spawns a child and joins it, then parks at a gated tool until a reviewer
// approves. One trace must arrive at the OTLP receiver: the sleep, spawn and join spans under
// the attempts, the child's attempt under the spawn span (the traceparent the child stored),
// and the reviewer's approval under the caller's span with the ledger entry it wrote.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { attr, type Received, traceThisProcess } from "../testing/otlp-receiver";

// Tracing is read from the environment once: set before anything reads it.
const { received, t, tracing } = await traceThisProcess({
  service: "agent-ledger-test",
  database: "tracing_flow",
  batchDelayMs: 50,
});
const { withTransaction } = await import("../../db/client");
const { operator } = await import("../../lib/domain/access");
const { defineAgent, defineTool } = await import("../../lib/sdk/define");
const { approveTask } = await import("../../lib/server/commands/approve-task");
const { rejectTask } = await import("../../lib/server/commands/reject-task");
const { insertTask } = await import("../../lib/server/commands/enqueue-task");
const { createApiToken } = await import("../../lib/server/commands/api-tokens");
const taskRoute = await import("../../app/api/v1/tasks/[id]/route");
const approveRoute = await import("../../app/api/v1/tasks/[id]/approve/route");
const { runtimeTestKit } = await import("./test-support");
const { workerForFile } = await import("./test-worker");

const CALLER_TRACE = "0af7651916cd43dd8448eb211c80319c";
const CALLER_SPAN = "b7ad6b7169203331";

const leaf = defineAgent({
  name: "traced-leaf",
  input: z.object({ n: z.number() }),
  tools: {},
  run: async (_ctx, input) => ({ doubled: input.n * 2 }),
});

const pay = defineTool({
  name: "pay",
  input: z.object({ cents: z.number() }),
  intent: (a) => a,
  requiresApproval: () => true,
  execute: async (a) => ({ paid: a.cents }),
});

const flow = defineAgent({
  name: "traced-flow",
  input: z.object({ cents: z.number() }),
  tools: { pay },
  run: async (ctx, input) => {
    await ctx.sleep(20);
    await ctx.step("plan", async () => input.cents);
    const child = await ctx.spawn(leaf, { n: input.cents });
    const joined = await ctx.join(child);
    const paid = await ctx.tool("pay", { cents: input.cents });
    return { joined, paid };
  },
});

const kit = runtimeTestKit(t.pool);
workerForFile(t.pool, {
  agents: [flow, leaf],
  concurrency: 4,
  policy: { maxAttempts: 3, backoffMs: 5, attemptTimeoutMs: 10_000 },
});

async function until<T>(what: () => string, probe: () => T | undefined, ms = 15_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await tracing?.flush();
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("OpenTelemetry traces around attempts", () => {
  it("puts sleeps, spawns, joins, the child's attempts and the reviewer's approval in the caller's trace", async () => {
    const { taskId } = await withTransaction(t.pool, (c) =>
      insertTask(c, {
        agent: "traced-flow",
        input: { cents: 700 },
        actor: "test",
        traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
      }),
    );
    const parked = await kit.waitFor(taskId, (row) => row.status === "awaiting_approval");
    const approved = await approveTask(t.pool, operator("rita@example.com"), {
      taskId,
      version: parked.version,
      note: "fine",
    });
    expect(approved.ok).toBe(true);
    expect((await kit.settle(taskId)).status).toBe("succeeded");

    const { rows: entries } = await t.pool.query<{ id: number; kind: string }>(
      "select id, kind from ledger_entries where task_id = $1 order by seq",
      [taskId],
    );
    const ours = () => received.filter((s) => s.traceId === CALLER_TRACE);
    const names = () => ours().map((s) => s.name);
    const spans = await until(
      () => `the spans; the trace has ${names().join(", ")}`,
      () => {
        const seen = new Set(names());
        const want = [
          "agent-ledger.sleep",
          "agent-ledger.spawn traced-leaf",
          "agent-ledger.join",
          "agent-ledger.review approve",
        ];
        // The child's attempt too, and the parent's last attempt, which ran the tool.
        const done = ours().some((s) => s.name === "agent-ledger.tool pay");
        return done && want.every((n) => seen.has(n)) ? ours() : undefined;
      },
    );
    const one = (name: string) => {
      const found = spans.filter((s) => s.name === name);
      expect(found, name).toHaveLength(1);
      return found[0] as Received;
    };
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const parentOf = (s: Received) => byId.get(s.parentSpanId ?? "");
    const attemptOf = (s: Received) => {
      const p = parentOf(s);
      expect(p?.name).toBe("agent-ledger.attempt");
      expect(attr(p as Received, "agent_ledger.task_id")).toBe(taskId);
      return p as Received;
    };

    // The sleep, spawn and join are spans of the parent's attempts.
    const sleep = one("agent-ledger.sleep");
    attemptOf(sleep);
    expect(String(attr(sleep, "agent_ledger.wake_at"))).toMatch(/^\d{4}-\d\d-\d\dT/);
    const spawn = one("agent-ledger.spawn traced-leaf");
    attemptOf(spawn);
    const childId = String(attr(spawn, "agent_ledger.child_task_id"));
    expect(childId).toMatch(/^[0-9a-f-]{36}$/);
    const joins = spans.filter((s) => s.name === "agent-ledger.join");
    expect(joins.length).toBeGreaterThanOrEqual(1);
    for (const join of joins) {
      attemptOf(join);
      expect(attr(join, "agent_ledger.child_task_id")).toEqual([childId]);
    }
    expect(joins.map((j) => attr(j, "agent_ledger.outcome"))).toContain("done");

    // The child stored the spawn span as its parent: its attempt is in the same trace under it.
    const { rows: child } = await t.pool.query<{ traceparent: string | null }>(
      "select traceparent from tasks where id = $1",
      [childId],
    );
    expect(child[0]?.traceparent).toBe(`00-${CALLER_TRACE}-${spawn.spanId}-01`);
    const childAttempt = spans.find(
      (s) => s.name === "agent-ledger.attempt" && attr(s, "agent_ledger.task_id") === childId,
    );
    expect(childAttempt?.parentSpanId).toBe(spawn.spanId);

    // The approval: under the caller's span, naming the task, the actor and its ledger entry.
    const review = one("agent-ledger.review approve");
    expect(review.parentSpanId).toBe(CALLER_SPAN);
    expect(attr(review, "agent_ledger.task_id")).toBe(taskId);
    expect(attr(review, "agent_ledger.actor")).toBe("rita@example.com");
    expect(attr(review, "agent_ledger.review_action")).toBe("approve");
    expect(attr(review, "agent_ledger.ledger_entry_id")).toBe(
      entries.find((e) => e.kind === "review.approved")?.id,
    );
    expect(attr(review, "agent_ledger.ledger_entry_kind")).toBe("review.approved");
    expect(review.status?.code ?? 0).not.toBe(2);

    // Each step.completed entry (the sleep, the step, the spawn) carries when its work began.
    const { rows: steps } = await t.pool.query<{ kind: string; startedAt: string | null }>(
      `select data->>'kind' as kind, data->>'startedAt' as "startedAt" from ledger_entries
       where task_id = $1 and kind = 'step.completed' order by seq`,
      [taskId],
    );
    expect(steps.map((s) => s.kind)).toEqual(["sleep", "step", "spawn"]);
    for (const s of steps) expect(Number.isNaN(Date.parse(String(s.startedAt)))).toBe(false);
  });

  it("makes a server span for each API request under the caller's, and links a review it carried", async () => {
    const made = await createApiToken(t.pool, operator("test"), {
      name: "traced-api",
      scopes: ["tasks:read", "approvals:decide"],
    });
    if (!made.ok) throw new Error(made.message);
    const { taskId } = await withTransaction(t.pool, (c) =>
      insertTask(c, { agent: "traced-flow", input: { cents: 9 }, actor: "test" }),
    );
    const parked = await kit.waitFor(taskId, (row) => row.status === "awaiting_approval");
    const callerSpan = "00f067aa0ba902b7";
    const headers = {
      authorization: `Bearer ${made.value.token}`,
      "content-type": "application/json",
      traceparent: `00-${CALLER_TRACE}-${callerSpan}-01`,
    };
    const params = (id: string) => ({ params: Promise.resolve({ id }) });
    const read = await taskRoute.GET(
      new Request(`http://localhost/api/v1/tasks/${taskId}`, { headers }),
      params(taskId),
    );
    expect(read.status).toBe(200);
    const missing = "0b6f1f0e-6a43-4d6b-9e83-1f2b3c4d5e6f";
    const notFound = await taskRoute.GET(
      new Request(`http://localhost/api/v1/tasks/${missing}`, { headers }),
      params(missing),
    );
    expect(notFound.status).toBe(404);
    const approved = await approveRoute.POST(
      new Request(`http://localhost/api/v1/tasks/${taskId}/approve`, {
        method: "POST",
        headers,
        body: JSON.stringify({ version: parked.version }),
      }),
      params(taskId),
    );
    expect(approved.status).toBe(200);

    const servers = await until(
      () => "the API's server spans",
      () => {
        const found = received.filter(
          (s) => s.traceId === CALLER_TRACE && s.parentSpanId === callerSpan,
        );
        return found.length === 3 ? found : undefined;
      },
    );
    const reads = servers.filter((s) => s.name === "GET /api/v1/tasks/{id}");
    expect(reads.map((s) => attr(s, "http.response.status_code")).sort()).toEqual([200, 404]);
    for (const s of reads) {
      expect(s.kind).toBe(2); // SPAN_KIND_SERVER
      expect(attr(s, "http.route")).toBe("/api/v1/tasks/{id}");
      // A 404 is the caller's mistake, not the server's failure.
      expect(s.status?.code ?? 0).not.toBe(2);
    }
    const approve = servers.find((s) => s.name === "POST /api/v1/tasks/{id}/approve");
    expect(attr(approve as Received, "http.response.status_code")).toBe(200);

    // The approval itself is in the task's own trace, linked to the request that carried it.
    const review = await until(
      () => "the API approval's review span",
      () =>
        received.find(
          (s) =>
            s.name === "agent-ledger.review approve" && attr(s, "agent_ledger.task_id") === taskId,
        ),
    );
    expect(review.traceId).toBe(taskId.replaceAll("-", ""));
    expect(review.links?.map((l) => [l.traceId, l.spanId])).toEqual([
      [CALLER_TRACE, approve?.spanId],
    ]);
  });

  it("names a refused review action on its span without failing it, in the task's own trace", async () => {
    const { taskId } = await withTransaction(t.pool, (c) =>
      insertTask(c, { agent: "traced-flow", input: { cents: 5 }, actor: "test" }),
    );
    const parked = await kit.waitFor(taskId, (row) => row.status === "awaiting_approval");
    // A stale version: refused as a conflict.
    const stale = await rejectTask(t.pool, operator("sam@example.com"), {
      taskId,
      version: parked.version - 1,
      reason: "no",
    });
    expect(stale.ok).toBe(false);
    const ownTrace = taskId.replaceAll("-", "");
    const review = await until(
      () => "the refused review span",
      () => received.find((s) => s.name === "agent-ledger.review reject" && s.traceId === ownTrace),
    );
    expect(review.parentSpanId ?? "").toBe("");
    expect(attr(review, "agent_ledger.refused")).toBe("conflict");
    expect(attr(review, "agent_ledger.ledger_entry_id")).toBeUndefined();
    expect(review.status?.code ?? 0).not.toBe(2);
  });
});
