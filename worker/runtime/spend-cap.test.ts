// An agent's daily spend budget against a real database and a real worker: a task over it waits
// for the next UTC day (and runs again when an admin raises the cap) or dead-letters with reason
// budget; a per-key budget stops one customer and not another; and under load (many tasks over
// many slots) the spend stops at the cap, passing it by at most one call per task in flight.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../db/testing/database";
import { testViewer } from "../../lib/auth/testing";
import { principalOf } from "../../lib/domain/access";
import { summarizeEntry } from "../../lib/domain/ledger-summary";
import { spendCapFormSchema } from "../../lib/domain/spend-cap-form";
import { buildTaskTimeline } from "../../lib/domain/task-timeline";
import { defineAgent, defineTool } from "../../lib/sdk/define";
import type { ModelClient } from "../../lib/sdk/model";
import { setSpendCap } from "../../lib/server/commands/set-spend-cap";
import { listRetryPolicies } from "../../lib/server/queries/list-retry-policies";
import { listSpendCaps } from "../../lib/server/queries/list-spend-caps";
import { explainWhy } from "../../lib/server/queries/why";
import { whyQuerySchema } from "../../lib/server/queries/why-schema";
import { nextUtcMidnight } from "./spend-cap";
import { runtimeTestKit } from "./test-support";
import { workerForFile } from "./test-worker";

const t = await setUpTestDatabase("spend_cap");
const kit = runtimeTestKit(t.pool);
const admin = principalOf(testViewer("admin", "ada@example.com"));

/** Every call costs exactly CALL_COST and takes a little while, so calls overlap under load. */
const CALL_COST = 0.01;
const calls = new Map<string, number>();
let inFlight = 0;
let maxInFlight = 0;
const model: ModelClient = {
  name: "fixed",
  async generate(request, signal) {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      await new Promise((r) => setTimeout(r, 15));
      if (signal.aborted) throw signal.reason;
      const agent = request.system ?? "?";
      calls.set(agent, (calls.get(agent) ?? 0) + 1);
      return {
        model: "fixed",
        text: "ok",
        toolCalls: [],
        usage: { inputTokens: 10, outputTokens: 10 },
        cost: CALL_COST,
      };
    } finally {
      inFlight -= 1;
    }
  },
};

const input = z.object({ calls: z.number(), customer: z.object({ id: z.string() }).optional() });
const caller = (name: string) =>
  defineAgent({
    name,
    input,
    tools: {},
    run: async (ctx, i) => {
      for (let n = 0; n < i.calls; n++) await ctx.model({ system: name, prompt: `call ${n}` });
      return { calls: i.calls };
    },
  });

const note = defineTool({
  name: "note",
  description: "Writes a note (does nothing)",
  input: z.object({ text: z.string() }),
  intent: (a) => a,
  execute: async () => ({ ok: true }),
});
/** A tool call (an effect /why can be asked about), then two model calls. */
const noter = defineAgent({
  name: "sc-why",
  input: z.object({}),
  tools: { note },
  run: async (ctx) => {
    await ctx.tool("note", { text: "before the model" });
    await ctx.model({ system: "sc-why", prompt: "one" });
    await ctx.model({ system: "sc-why", prompt: "two" });
    return {};
  },
});

const AGENTS = ["sc-wait", "sc-dead", "sc-key", "sc-load"] as const;
const CONCURRENCY = 8;
workerForFile(t.pool, {
  policy: { maxAttempts: 3, backoffMs: 5, attemptTimeoutMs: 10_000 },
  agents: [...AGENTS.map(caller), noter],
  model,
  concurrency: CONCURRENCY,
});

const cap = (agent: string, version: number | null, fields: Record<string, string>) =>
  spendCapFormSchema.parse({ agent, version: version ?? "", ...fields });

async function spentToday(agent: string): Promise<number> {
  const { rows } = await t.pool.query<{ spent: number }>(
    `select coalesce(sum(cost), 0)::float8 as spent from spend_daily
     where day = (now() at time zone 'UTC')::date and agent = $1`,
    [agent],
  );
  return rows[0]?.spent ?? 0;
}

const budgetWaiting = (id: string) =>
  kit.waitFor(
    id,
    (row, entries) => row.status === "queued" && entries.at(-1)?.kind === "task.requeued",
  );

describe("an agent's daily spend budget", () => {
  it("waits at the cap until the next UTC day, and runs again when an admin raises it", async () => {
    // Two calls a task at 0.01: the first task spends 0.02, the second's first call takes the
    // agent to 0.03 and its second finds the budget (0.025) spent.
    const set = await setSpendCap(t.pool, admin, cap("sc-wait", null, { dailyLimit: "0.025" }));
    expect(set).toEqual({ ok: true, value: { agent: "sc-wait", version: 1, woken: 0 } });
    const first = await kit.enqueue("sc-wait", { calls: 2 });
    expect(await kit.settle(first)).toMatchObject({ status: "succeeded" });
    const second = await kit.enqueue("sc-wait", { calls: 2 });
    const waiting = await budgetWaiting(second);
    expect(calls.get("sc-wait")).toBe(3);
    expect(waiting.run_at.getTime()).toBe(nextUtcMidnight().getTime());
    // No attempt is spent on waiting for money.
    expect(waiting.attempts).toBe(0);
    const requeued = (await kit.entries(second)).at(-1);
    expect(requeued?.data).toMatchObject({
      budget: { agent: "sc-wait", limit: 0.025, spent: 0.03 },
    });
    expect(
      summarizeEntry({ kind: "task.requeued", actor: "worker:x", data: requeued?.data ?? null }),
    ).toContain("why: daily budget: agent sc-wait spent $0.03 of its $0.025 daily budget");
    const { rows } = await t.pool.query(
      "select seq, at, kind, key, data from ledger_entries where task_id = $1 order by seq",
      [second],
    );
    const timeline = buildTaskTimeline(
      rows.map((r) => ({ ...r, seq: Number(r.seq), at: r.at.toISOString() })),
      new Date().toISOString(),
    );
    expect(timeline.segments.at(-1)).toMatchObject({ kind: "budget", open: true });
    // The screen shows the cap and the day's spend.
    const listed = (await listSpendCaps(t.db, testViewer("ops"))).find(
      (a) => a.agent === "sc-wait",
    );
    expect(listed).toMatchObject({ spentToday: 0.03, cap: { dailyLimit: 0.025, version: 1 } });

    const raised = await setSpendCap(t.pool, admin, cap("sc-wait", 1, { dailyLimit: "1" }));
    expect(raised).toEqual({ ok: true, value: { agent: "sc-wait", version: 2, woken: 1 } });
    expect(await kit.settle(second)).toMatchObject({ status: "succeeded" });
    // The journaled first call is not made again.
    expect(calls.get("sc-wait")).toBe(4);
    expect(await spentToday("sc-wait")).toBeCloseTo(0.04, 9);
  });

  it("/why tells a budget wait from other requeues", async () => {
    await setSpendCap(t.pool, admin, cap("sc-why", null, { dailyLimit: "0.005" }));
    const id = await kit.enqueue("sc-why", {});
    await budgetWaiting(id);
    const answer = await explainWhy(t.db, testViewer("ops"), whyQuerySchema.parse({ taskId: id }));
    expect(answer.effects[0]?.attempts.map((a) => a.outcome)).toEqual(["waiting_for_budget"]);
  });

  it("dead-letters with reason budget when the policy says so", async () => {
    await setSpendCap(
      t.pool,
      admin,
      cap("sc-dead", null, { dailyLimit: "0.015", onExceed: "dead" }),
    );
    const id = await kit.enqueue("sc-dead", { calls: 3 });
    const row = await kit.settle(id);
    expect(row).toMatchObject({ status: "dead", dead_reason: "budget" });
    expect(row.last_error?.message).toBe(
      "agent sc-dead has spent $0.02 of its $0.015 daily budget today (UTC)",
    );
    expect(calls.get("sc-dead")).toBe(2);
  });

  it("a per-key budget stops one customer's tasks and not another's", async () => {
    await setSpendCap(
      t.pool,
      admin,
      cap("sc-key", null, { keyPath: "customer.id", keyDailyLimit: "0.015" }),
    );
    const a = await kit.enqueue("sc-key", { calls: 3, customer: { id: "cus_A" } });
    await budgetWaiting(a);
    // Customer B's two calls start at 0 and 0.01 of its own 0.015: both go ahead.
    const b = await kit.enqueue("sc-key", { calls: 2, customer: { id: "cus_B" } });
    // No key in the input: the per-key budget does not apply (and the agent has no whole cap).
    const none = await kit.enqueue("sc-key", { calls: 3 });
    expect(await kit.settle(b)).toMatchObject({ status: "succeeded" });
    expect(await kit.settle(none)).toMatchObject({ status: "succeeded" });
    expect((await kit.task(a)).status).toBe("queued");
    expect((await kit.entries(a)).at(-1)?.data).toMatchObject({
      budget: { keyPath: "customer.id", key: "cus_A", limit: 0.015 },
    });
    const { rows } = await t.pool.query<{ key_value: string; cost: number }>(
      `select key_value, sum(cost)::float8 as cost from spend_key_daily where agent = 'sc-key'
       group by key_value order by key_value`,
    );
    expect(rows.map((r) => [r.key_value, Number(r.cost.toFixed(9))])).toEqual([
      ["cus_A", 0.02],
      ["cus_B", 0.02],
    ]);
  });

  it("under load stops model calls at the cap, at most one call past it per task in flight", async () => {
    const TASKS = 40;
    const CALLS = 3;
    const LIMIT = 0.5; // 50 calls of the 120 the tasks would make
    await setSpendCap(
      t.pool,
      admin,
      cap("sc-load", null, { dailyLimit: String(LIMIT), onExceed: "dead" }),
    );
    maxInFlight = 0;
    const ids = await Promise.all(
      Array.from({ length: TASKS }, () => kit.enqueue("sc-load", { calls: CALLS })),
    );
    const rows = await Promise.all(ids.map((id) => kit.settle(id, 60_000)));
    const spent = await spentToday("sc-load");
    const made = calls.get("sc-load") ?? 0;
    const allowed = Math.ceil(LIMIT / CALL_COST - 1e-9);
    const over = made - allowed;
    console.log(
      `spend cap load: ${TASKS} tasks × ${CALLS} calls of ${CALL_COST}, cap ${LIMIT}, concurrency ${CONCURRENCY}: ` +
        `${made} calls, spent ${spent.toFixed(4)}, ${over} call(s) past the cap ` +
        `(overshoot ${(spent - LIMIT).toFixed(4)}), at most ${maxInFlight} model calls in flight, ` +
        `${rows.filter((r) => r.status === "succeeded").length} succeeded, ` +
        `${rows.filter((r) => r.dead_reason === "budget").length} dead (budget)`,
    );
    expect(spent).toBeGreaterThanOrEqual(LIMIT - 1e-9);
    expect(spent).toBeLessThanOrEqual(LIMIT + CONCURRENCY * CALL_COST + 1e-9);
    expect(over).toBeLessThanOrEqual(CONCURRENCY);
    expect(rows.every((r) => r.status === "succeeded" || r.dead_reason === "budget")).toBe(true);
    expect(rows.some((r) => r.dead_reason === "budget")).toBe(true);
  });

  it("is refused when stale, recorded as policy.changed before → after, and cleared", async () => {
    const { rows: before } = await t.pool.query(
      "select count(*)::int as n from ledger_entries where kind = 'policy.changed'",
    );
    const current = (await listSpendCaps(t.db, testViewer("ops"))).find(
      (a) => a.agent === "sc-dead",
    );
    const version = current?.cap?.version ?? null;
    expect(
      await setSpendCap(t.pool, admin, cap("sc-dead", null, { dailyLimit: "2" })),
    ).toMatchObject({
      ok: false,
      code: "conflict",
    });
    expect(
      await setSpendCap(t.pool, principalOf(testViewer("reviewer")), cap("sc-dead", version, {})),
    ).toMatchObject({ ok: false, code: "forbidden" });
    expect(
      await setSpendCap(t.pool, admin, cap("no-such-agent", null, { dailyLimit: "1" })),
    ).toMatchObject({
      ok: false,
      code: "not_found",
    });
    expect(await setSpendCap(t.pool, admin, cap("sc-dead", version, {}))).toMatchObject({
      ok: true,
      value: { version: null },
    });
    const { rows } = await t.pool.query<{ actor: string; data: Record<string, unknown> }>(
      "select actor, data from ledger_entries where kind = 'policy.changed' order by id offset $1",
      [before[0].n],
    );
    expect(rows.map((e) => summarizeEntry({ kind: "policy.changed", ...e } as never))).toEqual([
      "by: ada@example.com · scope: budget:sc-dead · Daily budget $0.015 a day, then dead-letter → No budget",
    ]);
    const history = (await listRetryPolicies(t.db, testViewer("ops"))).changes.find(
      (c) => c.scope === "budget:sc-dead",
    );
    expect(history?.setting).toEqual({
      field: "dailyBudget",
      label: "Daily budget",
      before: "$0.015 a day, then dead-letter",
      after: "No budget",
    });
  });

  it("parses the form: amounts > 0 up to 1e6, a dot path, both halves of a per-key budget", () => {
    const issues = (fields: Record<string, string>) => {
      const r = spendCapFormSchema.safeParse({ agent: "a", version: "", ...fields });
      return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    };
    expect(issues({ dailyLimit: "0" })).toEqual(["dailyLimit: must be more than 0"]);
    expect(issues({ dailyLimit: "2000000" })).toEqual(["dailyLimit: must be at most 1,000,000"]);
    expect(issues({ keyPath: "customer..id", keyDailyLimit: "1" })).toEqual([
      "keyPath: must be a dot path into the task input, such as customerId or customer.id",
    ]);
    expect(issues({ keyPath: "customerId" })).toEqual(["keyDailyLimit: is required with a key"]);
    expect(
      spendCapFormSchema.parse({
        agent: "a",
        version: "3",
        keyPath: "customerId",
        keyDailyLimit: "2.5",
        onExceed: "dead",
      }),
    ).toEqual({
      agent: "a",
      version: 3,
      cap: { dailyLimit: null, keyPath: "customerId", keyDailyLimit: 2.5, onExceed: "dead" },
    });
  });
});
