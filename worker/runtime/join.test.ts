// ctx.join against real PostgreSQL: the parent parks in `waiting` (no lease, no attempt spent)
// until every child ended, the last child to end wakes it, a dead child holds it until a reviewer
// decides, a timeout returns the children as they stood, and a task that is not a child is refused.
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TaskCallout } from "../../components/tasks/task-callout";
import { openChildren } from "../../components/tasks/task-family";
import { setUpTestDatabase } from "../../db/testing/database";
import { testViewer } from "../../lib/auth/testing";
import { operator } from "../../lib/domain/access";
import { defineAgent, defineTool, type JoinResult } from "../../lib/sdk/define";
import { NonRetryableError } from "../../lib/sdk/errors";
import { rejectTask } from "../../lib/server/commands/reject-task";
import { getTaskDetail } from "../../lib/server/queries/get-task-detail";
import { listTasks } from "../../lib/server/queries/list-tasks";
import { explainWhy } from "../../lib/server/queries/why";
import { whyQuerySchema } from "../../lib/server/queries/why-schema";
import { runtimeTestKit } from "./test-support";
import { startWorker } from "./worker";

const t = await setUpTestDatabase("task_join");
const kit = runtimeTestKit(t.pool);

const pack = defineAgent({
  name: "pack",
  input: z.object({ parcel: z.string(), fail: z.boolean().default(false) }),
  tools: {},
  run: async (_ctx, input) => {
    if (input.fail) throw new NonRetryableError(`no box for ${input.parcel}`);
    return { packed: input.parcel };
  },
});

const notifyShipped = defineTool({
  name: "notify_shipped",
  input: z.object({ order: z.string() }),
  intent: (a) => a,
  execute: async (a) => ({ notified: a.order }),
});

const ship = defineAgent({
  name: "ship",
  input: z.object({
    order: z.string(),
    parcels: z.array(z.string()),
    failing: z.array(z.string()).default([]),
    timeoutMs: z.number().optional(),
    stranger: z.string().optional(),
    notify: z.boolean().default(false),
  }),
  tools: { notify_shipped: notifyShipped },
  run: async (ctx, input) => {
    if (input.stranger) {
      await ctx.join({ taskId: input.stranger, agent: "pack" });
      return null;
    }
    const children = [];
    for (const parcel of input.parcels) {
      children.push(
        await ctx.spawn(pack, { parcel, fail: input.failing.includes(parcel) }, { key: parcel }),
      );
    }
    const joined = await ctx.join(children, { timeoutMs: input.timeoutMs });
    if (input.notify) await ctx.tool("notify_shipped", { order: input.order });
    return joined as never;
  },
});

async function runShip() {
  for (let i = 0; i < 5; i++) {
    const ran = await kit.runOneAttempt("w-ship", [ship]);
    if (!ran) return;
  }
}
async function runPacks() {
  while (await kit.runOneAttempt("w-pack", [pack])) {}
}
const parked = (id: string) =>
  t.pool
    .query("select status, lease_owner, attempts from tasks where id = $1", [id])
    .then((r) => r.rows[0]);

describe("ctx.join", () => {
  it("parks without a lease until the last child ends, which wakes it", async () => {
    const id = await kit.enqueue("ship", { order: "o-1", parcels: ["a", "b"] });
    await runShip();
    expect(await parked(id)).toEqual({ status: "waiting", lease_owner: null, attempts: 0 });
    // The list and the page say what it waits for.
    const listed = await listTasks(t.db, testViewer("ops"), { agent: "ship" });
    expect(listed.tasks.find((x) => x.id === id)).toMatchObject({ joining: 2, waitingFor: null });
    const detail = await getTaskDetail(t.db, testViewer("ops"), id);
    if (!detail) throw new Error("no detail");
    const callout = renderToStaticMarkup(
      TaskCallout({
        task: detail.task,
        pendingApproval: undefined,
        joining: openChildren(detail.family),
      }),
    ).replaceAll("<!-- -->", "");
    expect(callout).toContain("Waiting for its children");
    expect(callout).toContain("while 2 children it joined have not ended");
    // One child ended: the parent waits on.
    expect((await kit.runOneAttempt("w-pack", [pack]))?.outcome).toBe("succeeded");
    expect((await kit.task(id)).status).toBe("waiting");
    await runPacks();
    // The last child's end moved the parent back to the queue (no worker polled it).
    expect((await kit.task(id)).status).toBe("queued");
    await runShip();
    const done = await kit.task(id);
    expect(done.status).toBe("succeeded");
    expect(done.attempts).toBe(1);
    const result = done.result as JoinResult;
    expect(result.timedOut).toBe(false);
    expect(result.children.map((c) => [c.agent, c.status, c.result])).toEqual([
      ["pack", "succeeded", { packed: "a" }],
      ["pack", "succeeded", { packed: "b" }],
    ]);
    const kinds = await kit.kinds(id);
    expect(kinds.filter((k) => k.startsWith("children."))).toEqual([
      "children.waiting",
      "children.joined",
    ]);
  });

  it("/why says an attempt ended waiting for the children", async () => {
    const id = await kit.enqueue("ship", { order: "o-why", parcels: ["w"], notify: true });
    await runShip();
    await runPacks();
    await runShip();
    expect((await kit.task(id)).status).toBe("succeeded");
    const why = await explainWhy(t.db, testViewer("ops"), whyQuerySchema.parse({ taskId: id }));
    expect(why.effects.map((e) => [e.effect.tool, e.attempts.map((a) => a.outcome)])).toEqual([
      ["notify_shipped", ["waiting_for_children", "succeeded"]],
    ]);
  });

  it("a dead child holds the join until a reviewer rejects it; the parent reads why", async () => {
    const id = await kit.enqueue("ship", { order: "o-2", parcels: ["c", "d"], failing: ["d"] });
    await runShip();
    await runPacks();
    expect((await kit.task(id)).status).toBe("waiting");
    const { rows } = await t.pool.query<{ id: string; version: number }>(
      "select id, version from tasks where parent_id = $1 and status = 'dead'",
      [id],
    );
    const dead = rows[0];
    if (!dead) throw new Error("no dead child");
    const rejected = await rejectTask(t.pool, operator("rita@example.com"), {
      taskId: dead.id,
      version: dead.version,
      reason: "parcel d was never in stock",
    });
    expect(rejected.ok).toBe(true);
    expect((await kit.task(id)).status).toBe("queued");
    await runShip();
    const result = (await kit.task(id)).result as JoinResult;
    expect(result.children.map((c) => c.status)).toEqual(["succeeded", "rejected"]);
  });

  it("times out with the children as they stood", async () => {
    const id = await kit.enqueue("ship", { order: "o-3", parcels: ["e"], timeoutMs: 50 });
    await runShip();
    expect((await kit.task(id)).status).toBe("waiting");
    await new Promise((r) => setTimeout(r, 80));
    await runShip();
    const done = await kit.task(id);
    expect(done.status).toBe("succeeded");
    expect(done.result).toMatchObject({ timedOut: true, children: [{ status: "queued" }] });
    expect(await kit.kinds(id)).toContain("children.timed_out");
    await runPacks();
  });

  it("wakes the parent when its last children end in transactions that commit together", async () => {
    const id = await kit.enqueue("ship", { order: "o-race", parcels: ["r1", "r2"] });
    await runShip();
    expect((await kit.task(id)).status).toBe("waiting");
    const { rows } = await t.pool.query<{ id: string }>(
      "select id from tasks where parent_id = $1 order by id",
      [id],
    );
    const worker = await startWorker({
      pool: t.pool,
      agents: [],
      concurrency: 1,
      pollMs: 50,
      id: "join-race",
      log: () => {},
    });
    const clients = [await t.pool.connect(), await t.pool.connect()];
    try {
      // Each ends one child; neither has committed when the other's trigger looks, so each
      // sees the other open and neither wakes the parent.
      for (const [i, client] of clients.entries()) {
        await client.query("begin");
        await client.query("update tasks set status = 'succeeded' where id = $1", [rows[i]?.id]);
      }
      for (const client of clients) await client.query("commit");
    } finally {
      for (const client of clients) client.release();
    }
    // The worker looks again once they committed: the parent is queued long before its 30 s
    // look-again (JOIN_RECHECK_MS) would have found it.
    const until = Date.now() + 5_000;
    while ((await kit.task(id)).status === "waiting" && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await kit.task(id)).status).toBe("queued");
    await worker.stop(1_000);
    await runShip();
    expect((await kit.task(id)).status).toBe("succeeded");
  });

  it("refuses a task that is not its child, naming it", async () => {
    const other = await kit.enqueue("pack", { parcel: "z" });
    const id = await kit.enqueue("ship", { order: "o-4", parcels: [], stranger: other });
    await runShip();
    const dead = await kit.task(id);
    expect(dead.status).toBe("dead");
    expect(dead.last_error?.message).toContain(`join: ${other} is not a child of this task`);
  });
});
