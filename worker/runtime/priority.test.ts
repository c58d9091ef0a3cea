// Priority against a real database: among the tasks runnable now the claim takes the highest
// first (equal priorities in the order they became runnable), a held task waits whatever its
// priority, the ledger records a priority that was set, and every way in refuses one out of range.
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { TaskFacts } from "../../components/tasks/task-facts";
import { TasksTable } from "../../components/tasks/tasks-table";
import { setUpTestDatabase } from "../../db/testing/database";
import { enqueueBodySchema } from "../../lib/api/v1/enqueue";
import { testViewer } from "../../lib/auth/testing";
import { operator } from "../../lib/domain/access";
import { enqueue, InvalidTaskInputError } from "../../lib/sdk/enqueue";
import { enqueueMany } from "../../lib/sdk/enqueue-many";
import { enqueueTasks } from "../../lib/server/commands/enqueue-tasks";
import { getTaskDetail } from "../../lib/server/queries/get-task-detail";
import { listTasks } from "../../lib/server/queries/list-tasks";
import { CLAIM_CANDIDATES, claimTasks } from "./task-sql";

const t = await setUpTestDatabase("task_priority");

async function enqueueAll(agent: string, priorities: (number | undefined)[], runAt?: Date) {
  const result = await enqueueTasks(
    t.pool,
    operator("test"),
    priorities.map((priority, i) => ({
      agent,
      input: { i },
      priority,
      runAt,
      unpublished: "enqueue" as const,
    })),
  );
  if (!result.ok) throw new Error(result.message);
  return result.value.map((v) => v.taskId);
}

async function claimOrder(agent: string, n: number): Promise<string[]> {
  const order: string[] = [];
  for (let i = 0; i < n; i++) {
    const [row] = await claimTasks(t.pool, "w-test", [agent], 1, 30_000);
    if (!row) break;
    order.push(row.id);
  }
  return order;
}

describe("task priority", () => {
  it("claims the highest priority first, equal ones oldest first", async () => {
    // One enqueue each: tasks of one statement share its run_at, and ties then go by id.
    const [a, b, c, d] = [
      ...(await enqueueAll("prio", [undefined])),
      ...(await enqueueAll("prio", [10])),
      ...(await enqueueAll("prio", [-5])),
      ...(await enqueueAll("prio", [10])),
    ];
    expect(await claimOrder("prio", 5)).toEqual([b, d, a, c]);
  });

  it("claims across a worker's agents in one order, and reads no more of the queue than it takes", async () => {
    const [low] = await enqueueAll("prio-x", [1]);
    const [high] = await enqueueAll("prio-y", [7]);
    const [mid] = await enqueueAll("prio-x", [4]);
    // A deep queue behind them, enqueued in one burst: the planner's statistics have not seen it.
    await enqueueAll(
      "prio-y",
      Array.from({ length: 2_000 }, () => -1),
    );
    const rowsRead = async () => {
      const { rows } = await t.pool.query<{ "QUERY PLAN": unknown }>(
        // $2 and $3 are the claim's worker and lease, which the candidates do not use.
        `explain (analyze, format json) with ${CLAIM_CANDIDATES} select id, $2::text, $3::int from candidates`,
        [2, "w-plan", 30_000, ["prio-x", "prio-y"]],
      );
      // Every scan of tasks in the plan, and the rows it handed up.
      const scans: number[] = [];
      const walk = (node: Record<string, unknown>) => {
        if (node["Relation Name"] === "tasks") {
          scans.push(Number(node["Actual Rows"]) * Number(node["Actual Loops"] ?? 1));
        }
        for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? [])
          walk(child);
      };
      const plans = (rows[0]?.["QUERY PLAN"] ?? []) as { Plan: Record<string, unknown> }[];
      walk(plans[0]?.Plan ?? {});
      return scans;
    };
    // At most the limit (2) from each agent's walk, not its 2,000 queued tasks sorted.
    const scans = await rowsRead();
    expect(scans.length).toBeGreaterThan(0);
    expect(scans.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(2 * 2);
    const first = await claimTasks(t.pool, "w-test", ["prio-x", "prio-y"], 2, 30_000);
    expect(first.map((r) => r.id)).toEqual([high, mid]);
    const [next] = await claimTasks(t.pool, "w-test", ["prio-y", "prio-x"], 1, 30_000);
    expect(next?.id).toBe(low);
  });

  it("leaves a held task waiting whatever its priority", async () => {
    const [held] = await enqueueAll("prio-held", [1000], new Date(Date.now() + 3_600_000));
    const [now] = await enqueueAll("prio-held", [-1000]);
    expect(await claimOrder("prio-held", 2)).toEqual([now]);
    const { rows } = await t.pool.query("select status, priority from tasks where id = $1", [held]);
    expect(rows[0]).toEqual({ status: "queued", priority: 1000 });
  });

  it("shows a priority other than 0 on the task page", async () => {
    const [plain, urgent, late] = await enqueueAll("prio-page", [undefined, 25, -4]);
    const facts = async (id: string | undefined) => {
      const detail = await getTaskDetail(t.db, testViewer("ops"), id ?? "");
      if (!detail) throw new Error(`no task ${id}`);
      return {
        priority: detail.task.priority,
        html: renderToStaticMarkup(TaskFacts({ task: detail.task })).replaceAll("<!-- -->", ""),
      };
    };
    expect((await facts(plain)).priority).toBe(0);
    expect((await facts(plain)).html).not.toContain("Priority");
    expect((await facts(urgent)).html).toContain("+25");
    expect((await facts(urgent)).html).toContain("claimed before priority 0");
    expect((await facts(late)).html).toContain("claimed after priority 0");
  });

  it("shows a priority other than 0 in the tasks list", async () => {
    const [plain, urgent, late] = await enqueueAll("prio-list", [undefined, 7, -3]);
    const page = await listTasks(t.db, testViewer("ops"), { agent: "prio-list" });
    // One statement: the three share created_at, so the list's order among them is by id.
    expect(new Map(page.tasks.map((x) => [x.id, x.priority]))).toEqual(
      new Map([
        [plain, 0],
        [urgent, 7],
        [late, -3],
      ]),
    );
    const html = renderToStaticMarkup(TasksTable({ tasks: page.tasks, caption: "Tasks" }));
    expect(html).toContain('data-priority="7">priority +7<');
    expect(html).toContain('data-priority="-3">priority -3<');
    expect(html.match(/data-priority=/g)).toHaveLength(2);
  });

  it("records a priority that was set in task.enqueued, and none when it was not", async () => {
    const [plain, urgent] = await enqueueAll("prio-ledger", [undefined, 50]);
    const { rows } = await t.pool.query<{ task_id: string; data: Record<string, unknown> }>(
      "select task_id, data from ledger_entries where kind = 'task.enqueued' and task_id = any($1)",
      [[plain, urgent]],
    );
    const dataOf = (id: string | undefined) => rows.find((r) => r.task_id === id)?.data;
    expect(dataOf(urgent)).toMatchObject({ priority: 50 });
    expect(dataOf(plain)).not.toHaveProperty("priority");
  });

  it("is refused out of range or fractional by the library, the API and the command", async () => {
    await expect(enqueue(t.pool, { agent: "prio-lib", input: {}, priority: 1001 })).rejects.toThrow(
      new InvalidTaskInputError("invalid priority for prio-lib: must be at most 1000"),
    );
    await expect(
      enqueueMany(t.pool, [
        { agent: "prio-lib", input: {}, priority: 5 },
        { agent: "prio-lib", input: {}, priority: 1.5 },
      ]),
    ).rejects.toThrow(/#1: invalid priority for prio-lib: must be a whole number/);
    const body = enqueueBodySchema.safeParse({ agent: "prio-api", priority: -1001 });
    expect(body.success).toBe(false);
    expect(body.error?.issues[0]).toMatchObject({
      path: ["priority"],
      message: "must be at least -1000",
    });
    await expect(enqueueAll("prio-cmd", [2000])).rejects.toThrow(/priority 2000/);
    const { rows } = await t.pool.query(
      "select count(*)::int as n from tasks where agent like 'prio-lib%' or agent = 'prio-cmd'",
    );
    expect(rows[0].n).toBe(0);

    const ok = await enqueue(t.pool, { agent: "prio-lib", input: {}, priority: -3 });
    const row = await t.pool.query("select priority from tasks where id = $1", [ok.taskId]);
    expect(row.rows[0].priority).toBe(-3);
  });
});
