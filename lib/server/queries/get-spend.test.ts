// The spend screen's figures come from the counters, which a real worker's model calls keep:
// each must equal what the ledger's model.called entries and the tasks' costs add up to.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { withTransaction } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import { createScriptedModel } from "../../../worker/models/scripted";
import { workerForFile } from "../../../worker/runtime/test-worker";
import { testViewer } from "../../auth/testing";
import { operator } from "../../domain/access";
import { defineAgent, defineTool } from "../../sdk/define";
import { insertTask } from "../commands/enqueue-task";
import { rejectTask } from "../commands/reject-task";
import { replayTask } from "../commands/replay-task";
import { getSpend, getSpendRows, NO_TOOL_LABEL, spendSearchSchema, spendWindow } from "./get-spend";
import { parseSearchParams } from "./parse-search-params";

const t = await setUpTestDatabase("spend");
const ops = testViewer("ops");
const failing = new Set<string>();

const tool = (name: string) =>
  defineTool({
    name,
    description: `The ${name} tool`,
    input: z.object({ n: z.number() }),
    intent: (a) => ({ n: a.n }),
    execute: async () => ({ ok: true }),
  });

// The prompt says how many tools the answer proposes: none, one (lookup) or two (both).
const model = createScriptedModel((req) => {
  const count = /tools=(\d)/.exec(req.prompt ?? "")?.[1] ?? "0";
  const names = ["lookup", "notify"].slice(0, Number(count));
  return {
    text: `answer for ${req.prompt} ${"x".repeat(Number(count) * 40)}`,
    toolCalls: names.map((toolName) => ({ toolName, args: { n: 1 } })),
  };
});

const agentNamed = (name: string) =>
  defineAgent({
    name,
    input: z.object({ ref: z.string(), tools: z.number() }),
    tools: { lookup: tool("lookup"), notify: tool("notify") },
    run: async (ctx, input) => {
      const decision = await ctx.model({
        prompt: `ref ${input.ref} tools=${input.tools}`,
        tools: ["lookup", "notify"],
      });
      if (failing.has(input.ref)) throw new Error(`${input.ref} fails after the model answered`);
      return { text: decision.text };
    },
  });

workerForFile(t.pool, {
  policy: { maxAttempts: 1, backoffMs: 5, attemptTimeoutMs: 5_000 },
  agents: [agentNamed("billing"), agentNamed("support")],
  model,
  concurrency: 2,
});

type Settled = { id: string; status: string; cost: number; version: number };

async function settle(id: string, statuses = ["succeeded", "dead"]): Promise<Settled> {
  for (let i = 0; i < 400; i++) {
    const { rows } = await t.pool.query<Settled>(
      "select id, status, cost, version from tasks where id = $1",
      [id],
    );
    const row = rows[0];
    if (row && statuses.includes(row.status)) return row;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`task ${id} did not settle`);
}

async function run(agent: string, ref: string, tools: number): Promise<Settled> {
  const { taskId } = await withTransaction(t.pool, (c) =>
    insertTask(c, { agent, input: { ref, tools }, actor: "test" }),
  );
  return settle(taskId);
}

type Call = {
  agent: string;
  model: string;
  cost: number;
  usage: { inputTokens: number; outputTokens: number };
  toolCalls: { toolName: string }[];
};

/** What the ledger says was spent: every model.called entry with its task's agent. */
async function ledgerCalls(): Promise<Call[]> {
  const { rows } = await t.pool.query<{ agent: string; data: Omit<Call, "agent"> }>(
    `select t.agent, e.data from ledger_entries e join tasks t on t.id = e.task_id
      where e.kind = 'model.called'`,
  );
  return rows.map((r) => ({ agent: r.agent, ...r.data }));
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe("getSpend", () => {
  const tasks: Record<string, Settled> = {};

  it("adds up to the ledger's model calls, by agent, model and tool", async () => {
    tasks.a = await run("billing", "a", 2);
    tasks.b = await run("billing", "b", 0);
    tasks.c = await run("support", "c", 1);
    failing.add("d");
    tasks.d = await run("support", "d", 2);
    expect(tasks.d.status).toBe("dead");

    const calls = await ledgerCalls();
    expect(calls).toHaveLength(4);
    const spend = await getSpend(t.pool, ops, {});
    expect(spend.totals.calls).toBe(4);
    expect(spend.totals.cost).toBeCloseTo(sum(calls.map((c) => c.cost)), 12);
    expect(spend.totals.inputTokens).toBe(sum(calls.map((c) => c.usage.inputTokens)));
    expect(spend.totals.outputTokens).toBe(sum(calls.map((c) => c.usage.outputTokens)));
    expect(spend.totals.unpricedCalls).toBe(0);
    expect(spend.days).toHaveLength(30);
    expect(spend.days.at(-1)?.day).toBe(spend.to);
    expect(sum(spend.days.map((d) => d.cost))).toBeCloseTo(spend.totals.cost, 12);

    for (const agent of ["billing", "support"]) {
      const row = spend.byAgent.find((r) => r.key === agent);
      const mine = calls.filter((c) => c.agent === agent);
      expect(row?.calls).toBe(mine.length);
      expect(row?.cost).toBeCloseTo(sum(mine.map((c) => c.cost)), 12);
      expect(row?.share).toBeCloseTo(sum(mine.map((c) => c.cost)) / spend.totals.cost, 12);
    }
    expect(spend.byModel).toHaveLength(1);
    expect(spend.byModel[0]).toMatchObject({ key: "scripted", calls: 4, share: 1 });

    // A call's cost split evenly over the tools it proposed; '' for an answer without one.
    const toolShare = (name: string) =>
      sum(
        calls.map((c) =>
          name === ""
            ? c.toolCalls.length === 0
              ? c.cost
              : 0
            : (c.cost * c.toolCalls.filter((x) => x.toolName === name).length) /
              Math.max(1, c.toolCalls.length),
        ),
      );
    for (const name of ["", "lookup", "notify"]) {
      const row = spend.byTool.find((r) => r.tool === name);
      expect(row?.cost).toBeCloseTo(toolShare(name), 12);
    }
    expect(spend.byTool.find((r) => r.tool === "")?.label).toBe(NO_TOOL_LABEL);
    expect(spend.byTool.find((r) => r.tool === "lookup")?.decisions).toBe(3);
    expect(sum(spend.byTool.map((r) => r.cost))).toBeCloseTo(spend.totals.cost, 12);
  });

  it("gives the share spent on tasks now dead, and the most expensive tasks", async () => {
    const { rows } = await t.pool.query<{ status: string; cost: number }>(
      "select status, cost from tasks where cost > 0",
    );
    const spend = await getSpend(t.pool, ops, {});
    const all = sum(rows.map((r) => r.cost));
    const dead = sum(rows.filter((r) => r.status === "dead").map((r) => r.cost));
    expect(dead).toBeGreaterThan(0);
    expect(spend.wasted.taskCost).toBeCloseTo(all, 12);
    expect(spend.wasted.deadCost).toBeCloseTo(dead, 12);
    expect(spend.wasted.deadTasks).toBe(1);
    expect(spend.wasted.share).toBeCloseTo(dead / all, 12);
    // The counter holds every task that spent, once, under its status now: nothing left under
    // the statuses they passed through (running, retry_wait) on the way. Costs are float8: a
    // status a task left holds its +c and -c in rows summed in any order, 0 give or take 1e-17.
    const counted = await t.pool.query<{ status: string; tasks: number; cost: number }>(
      `select status, sum(tasks)::int as tasks, sum(cost) as cost from task_spend
       group by status having sum(tasks) <> 0 or abs(sum(cost)) > 1e-9 order by status`,
    );
    const byStatus = new Map<string, { tasks: number; cost: number }>();
    for (const r of rows) {
      const s = byStatus.get(r.status) ?? { tasks: 0, cost: 0 };
      byStatus.set(r.status, { tasks: s.tasks + 1, cost: s.cost + r.cost });
    }
    expect(counted.rows.map((r) => [r.status, r.tasks])).toEqual(
      [...byStatus].sort(([a], [b]) => (a < b ? -1 : 1)).map(([status, v]) => [status, v.tasks]),
    );

    const expected = [...Object.values(tasks)].sort(
      (x, y) => y.cost - x.cost || (y.id < x.id ? -1 : 1),
    );
    expect(spend.topTasks.map((r) => r.id)).toEqual(expected.map((r) => r.id));
    expect(spend.topTasks[0]).toMatchObject({ cost: expected[0]?.cost });
  });

  it("narrows by agent, model, tool and window", async () => {
    const calls = await ledgerCalls();
    const support = await getSpend(t.pool, ops, { agent: "support" });
    expect(support.totals.calls).toBe(2);
    expect(support.totals.cost).toBeCloseTo(
      sum(calls.filter((c) => c.agent === "support").map((c) => c.cost)),
      12,
    );
    expect(support.byAgent.map((r) => r.key)).toEqual(["support"]);
    expect(support.topTasks.every((r) => r.agent === "support")).toBe(true);
    expect(support.wasted.deadTasks).toBe(1);
    expect(support.choices.agents).toEqual(["billing", "support"]);

    const billing = await getSpend(t.pool, ops, { agent: "billing" });
    expect(billing.wasted).toMatchObject({ deadCost: 0, share: 0 });

    const other = await getSpend(t.pool, ops, { model: "gpt-other" });
    expect(other.totals).toMatchObject({ calls: 0, cost: 0 });
    expect(other.byAgent).toEqual([]);

    const noTool = await getSpend(t.pool, ops, { tool: "-" });
    expect(noTool.byTool.map((r) => r.tool)).toEqual([""]);

    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const later = await getSpend(t.pool, ops, { from: tomorrow, to: tomorrow });
    expect(later.totals.calls).toBe(0);
    expect(later.days).toEqual([{ day: tomorrow, cost: 0, calls: 0 }]);
    expect(later.topTasks).toEqual([]);
    expect(later.wasted.share).toBeNull();

    const rows = await getSpendRows(t.pool, ops, { agent: "billing" });
    expect(rows.rows).toHaveLength(1);
    expect(rows.rows[0]).toMatchObject({ agent: "billing", model: "scripted", calls: 2 });
  });

  it("moves a dead task's spend to its new status when it is replayed", async () => {
    const dead = tasks.d;
    if (!dead) throw new Error("the dead task runs in the first test");
    failing.delete("d");
    const replayed = await replayTask(t.pool, operator("test"), {
      taskId: dead.id,
      version: dead.version,
      fromStep: 1,
    });
    expect(replayed.ok).toBe(true);
    const after = await settle(dead.id, ["succeeded"]);
    const spend = await getSpend(t.pool, ops, {});
    expect(spend.wasted).toMatchObject({ deadCost: 0, deadTasks: 0, share: 0 });
    const { rows } = await t.pool.query<{ cost: number }>("select sum(cost) as cost from tasks");
    expect(spend.wasted.taskCost).toBeCloseTo(rows[0]?.cost ?? 0, 12);
    expect(spend.topTasks.find((r) => r.id === dead.id)).toMatchObject({
      status: "succeeded",
      cost: after.cost,
    });
  });

  it("counts a dead task a reviewer rejects under rejected, with all it spent", async () => {
    failing.add("e");
    const dead = await run("billing", "e", 1);
    expect(dead.status).toBe("dead");
    const before = await getSpend(t.pool, ops, { agent: "billing" });
    expect(before.wasted.deadCost).toBeCloseTo(dead.cost, 12);
    const rejected = await rejectTask(t.pool, operator("test"), {
      taskId: dead.id,
      version: dead.version,
      reason: "not worth retrying",
    });
    expect(rejected.ok).toBe(true);
    const after = await getSpend(t.pool, ops, { agent: "billing" });
    expect(after.wasted).toMatchObject({ deadCost: 0, deadTasks: 0, rejectedTasks: 1 });
    expect(after.wasted.rejectedCost).toBeCloseTo(dead.cost, 12);
    expect(after.wasted.share).toBeCloseTo(dead.cost / after.wasted.taskCost, 12);
    expect(after.wasted.taskCost).toBeCloseTo(before.wasted.taskCost, 12);
  });

  it("is for ops and admins: a reviewer is refused", async () => {
    await expect(getSpend(t.pool, testViewer("reviewer"), {})).rejects.toMatchObject({
      status: 403,
    });
    await expect(getSpendRows(t.pool, testViewer("reviewer"), {})).rejects.toMatchObject({
      status: 403,
    });
    await expect(getSpend(t.pool, testViewer("admin"), {})).resolves.toBeDefined();
  });
});

describe("the spend address", () => {
  it("defaults to the last 30 days including today, and fills in a missing end", () => {
    expect(spendWindow({}, "2026-12-03")).toEqual({ from: "2026-11-04", to: "2026-12-03" });
    expect(spendWindow({ to: "2026-01-30" }, "2026-12-03")).toEqual({
      from: "2026-01-01",
      to: "2026-01-30",
    });
    expect(spendWindow({ from: "2026-11-20" }, "2026-12-03")).toEqual({
      from: "2026-11-20",
      to: "2026-12-03",
    });
  });

  it("refuses a window that is backwards, too long or not days, in words", () => {
    const errors = (raw: Record<string, string>) => {
      const parsed = parseSearchParams(spendSearchSchema, raw);
      return parsed.ok ? [] : parsed.errors;
    };
    expect(errors({ from: "2026-12-03", to: "2026-12-01" })).toEqual([
      "the window's start (from) must not be after its end (to).",
    ]);
    expect(errors({ from: "2025-01-01", to: "2026-01-02" })).toEqual([
      "the window may span at most 366 days.",
    ]);
    expect(errors({ from: "2024-01-01", to: "2024-12-31" })).toEqual([]);
    expect(errors({ from: "yesterday" })).toEqual(['"from" must be a day as YYYY-MM-DD (UTC).']);
  });
});
