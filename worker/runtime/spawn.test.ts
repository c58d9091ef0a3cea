// ctx.spawn against real PostgreSQL: a child is enqueued once per intent whatever happens to its
// parent (a retry, a journal entry lost after the enqueue committed, a reviewer's replay), it
// knows its parent, and a bad spawn dead-letters the parent with what was wrong.
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { childrenNote } from "../../components/review/task-review-panel";
import { openChildren, TaskFamily } from "../../components/tasks/task-family";
import { setUpTestDatabase } from "../../db/testing/database";
import { testViewer } from "../../lib/auth/testing";
import { operator } from "../../lib/domain/access";
import { defineAgent } from "../../lib/sdk/define";
import { NonRetryableError } from "../../lib/sdk/errors";
import { replayTask } from "../../lib/server/commands/replay-task";
import { getTaskDetail } from "../../lib/server/queries/get-task-detail";
import { spawnKey } from "./spawn";
import { runtimeTestKit } from "./test-support";

const t = await setUpTestDatabase("task_spawn");
const kit = runtimeTestKit(t.pool);

const refundOrder = defineAgent({
  name: "refund-order",
  input: z.object({ orderId: z.string(), cents: z.number().int().positive() }),
  tools: {},
  run: async (_ctx, input) => ({ refunded: input.orderId }),
});

/** Fails the first attempt after spawning when told to, or dies for good (to be replayed). */
const fail = new Map<string, "retry" | "dead">();
const triage = defineAgent({
  name: "triage",
  input: z.object({ incident: z.string(), orders: z.array(z.string()) }),
  tools: {},
  run: async (ctx, input) => {
    const children = [];
    for (const orderId of input.orders) {
      children.push(await ctx.spawn(refundOrder, { orderId, cents: 500 }, { key: orderId }));
    }
    const how = fail.get(input.incident);
    if (how === "retry" && ctx.attempt === 1) throw new Error("the incident tracker timed out");
    if (how === "dead") {
      fail.delete(input.incident);
      throw new NonRetryableError("stopped after spawning");
    }
    return { children: children.map((c) => c.taskId) };
  },
});

const badSpawn = defineAgent({
  name: "bad-spawn",
  input: z.object({}),
  tools: {},
  // Type-correct, but -3 is not a positive amount: refused by the child's schema at the spawn.
  run: async (ctx) => {
    await ctx.spawn(refundOrder, { orderId: "o-1", cents: -3 });
    return null;
  },
});

const agents = [triage, refundOrder, badSpawn];

async function runUntilSettled(id: string) {
  for (let i = 0; i < 10; i++) {
    await t.pool.query("update tasks set run_at = now() where id = $1 and status = 'retry_wait'", [
      id,
    ]);
    const row = await kit.task(id);
    if (["succeeded", "dead"].includes(row.status)) return row;
    await kit.runOneAttempt(`w-${i}`, [triage, badSpawn]);
  }
  return kit.task(id);
}

async function childrenOf(id: string) {
  const { rows } = await t.pool.query<{ id: string; agent: string; input: unknown; key: string }>(
    "select id, agent, input, enqueue_key as key from tasks where parent_id = $1 order by input->>'orderId'",
    [id],
  );
  return rows;
}

describe("ctx.spawn", () => {
  it("enqueues each child once across a retry of the parent, and records the parent", async () => {
    fail.set("inc-1", "retry");
    const id = await kit.enqueue("triage", { incident: "inc-1", orders: ["o-1", "o-2", "o-3"] });
    const done = await runUntilSettled(id);
    expect(done.status).toBe("succeeded");
    expect(done.attempts).toBe(2);
    const children = await childrenOf(id);
    expect(children.map((c) => c.agent)).toEqual(["refund-order", "refund-order", "refund-order"]);
    expect(children[0]?.key).toBe(spawnKey(id, "refund-order", { key: "o-1" }));
    expect((done.result as { children: string[] }).children.sort()).toEqual(
      children.map((c) => c.id).sort(),
    );
    const [first] = await kit.entries(children[0]?.id ?? "");
    expect(first).toMatchObject({ kind: "task.enqueued", data: { parent: id } });
    const steps = await t.pool.query(
      "select kind, name from steps where task_id = $1 order by seq",
      [id],
    );
    expect(steps.rows).toEqual(
      Array.from({ length: 3 }, () => ({ kind: "spawn", name: "refund-order" })),
    );
  });

  it("gets the same children back when the journal lost the spawns after they committed", async () => {
    const id = await kit.enqueue("triage", { incident: "inc-2", orders: ["o-1", "o-2"] });
    await runUntilSettled(id);
    const before = await childrenOf(id);
    expect(before).toHaveLength(2);
    // An attempt that died between the enqueue and its journal entry left exactly this.
    await t.pool.query("delete from steps where task_id = $1", [id]);
    await t.pool.query(
      "update tasks set status = 'queued', result = null, run_at = now(), version = version + 1 where id = $1",
      [id],
    );
    const again = await runUntilSettled(id);
    expect(again.status).toBe("succeeded");
    expect(await childrenOf(id)).toEqual(before);
  });

  it("a reviewer's replay of the parent enqueues no child twice", async () => {
    fail.set("inc-3", "dead");
    const id = await kit.enqueue("triage", { incident: "inc-3", orders: ["o-7", "o-8"] });
    const dead = await runUntilSettled(id);
    expect(dead).toMatchObject({ status: "dead", dead_reason: "non_retryable" });
    const before = await childrenOf(id);
    const replayed = await replayTask(t.pool, operator("rita@example.com"), {
      taskId: id,
      version: dead.version,
      fromStep: 1,
    });
    expect(replayed.ok).toBe(true);
    expect((await runUntilSettled(id)).status).toBe("succeeded");
    expect(await childrenOf(id)).toEqual(before);
    expect(before).toHaveLength(2);
  });

  it("dead-letters the parent with the child's input problem, enqueuing nothing", async () => {
    const id = await kit.enqueue("bad-spawn", {});
    const dead = await runUntilSettled(id);
    expect(dead.status).toBe("dead");
    expect(dead.last_error?.message).toMatch(/spawn refund-order: invalid input: .*cents/);
    expect(await childrenOf(id)).toEqual([]);
  });

  it("the children run as tasks of their own agent", async () => {
    const id = await kit.enqueue("triage", { incident: "inc-4", orders: ["o-9"] });
    await runUntilSettled(id);
    const [child] = await childrenOf(id);
    // Children of earlier tests may be claimed first: run until this one is done.
    for (let i = 0; i < 20 && (await kit.task(child?.id ?? "")).status !== "succeeded"; i++) {
      await kit.runOneAttempt("w-child", agents);
    }
    expect(await kit.task(child?.id ?? "")).toMatchObject({
      status: "succeeded",
      result: { refunded: "o-9" },
    });
  });

  it("shows the tree on both pages: the parent's children with their states, the child's parent", async () => {
    const id = await kit.enqueue("triage", { incident: "inc-5", orders: ["o-10", "o-11"] });
    await runUntilSettled(id);
    const [one, two] = await childrenOf(id);
    await t.pool.query("update tasks set status = 'cancelled' where id = $1", [two?.id]);
    const parent = await getTaskDetail(t.db, testViewer("ops"), id);
    expect(parent?.family).toMatchObject({
      parent: null,
      childCount: 2,
      byStatus: { queued: 1, cancelled: 1 },
    });
    // Cancelling or rejecting the parent says the queued child goes on.
    expect(openChildren(parent?.family ?? never())).toBe(1);
    expect(childrenNote(1)).toBe(
      "Its 1 unfinished child task goes on as it is: cancel or reject it on its own page.",
    );
    expect(childrenNote(0)).toBeNull();
    const html = renderToStaticMarkup(TaskFamily({ family: parent?.family ?? never() }));
    expect(html.replaceAll("<!-- -->", "")).toContain("2 children: 1 Queued, 1 Cancelled.");
    expect(html).toContain(`data-task-child="${one?.id}"`);
    const child = await getTaskDetail(t.db, testViewer("ops"), one?.id ?? "");
    expect(child?.family).toMatchObject({ parent: { id, agent: "triage" }, childCount: 0 });
    expect(renderToStaticMarkup(TaskFamily({ family: child?.family ?? never() }))).toContain(
      `/tasks/${id}`,
    );
  });
});

function never(): never {
  throw new Error("no task detail");
}
