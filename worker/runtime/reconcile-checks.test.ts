// "Check with the provider" end to end against real PostgreSQL: a reviewer's request (the
// command) is answered by a worker that runs the agent — reconcile called once with the
// effect's key and arguments, the answer recorded in the check and the task's ledger with who
// asked — and never changes the effect or the task. A tool without reconcile is refused, a
// failing provider is recorded as failed, a double click asks once.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../db/testing/database";
import { testViewer } from "../../lib/auth/testing";
import { principalOf } from "../../lib/domain/access";
import { defineAgent, defineTool } from "../../lib/sdk/define";
import { requestReconcile } from "../../lib/server/commands/request-reconcile";
import { publishCatalog } from "./catalog";
import { answerNextCheck } from "./reconcile-checks";
import { stageUnknownOutcome } from "./stage-unknown-outcome";
import { runtimeTestKit } from "./test-support";
import { startWorker } from "./worker";

const t = await setUpTestDatabase("reconcile_checks");
const kit = runtimeTestKit(t.pool);
const reviewer = principalOf(testViewer("reviewer"));
const ops = principalOf(testViewer("ops"));

/** What the provider says about each order: one answer per call, and every call counted. */
const provider = new Map<string, "happened" | "not" | "throw">();
const calls: { key: string; orderId: string }[] = [];

const refund = defineTool({
  name: "refund",
  input: z.object({ orderId: z.string(), cents: z.number().int() }),
  intent: (a) => ({ orderId: a.orderId }),
  sensitive: ["token"],
  execute: async (a) => ({ refundId: `re_${a.orderId}`, token: "secret" }),
  reconcile: async (key, a) => {
    calls.push({ key, orderId: a.orderId });
    const said = provider.get(a.orderId) ?? "not";
    if (said === "throw") throw new Error("reconcile: payments API 503");
    return said === "happened"
      ? { happened: true, result: { refundId: `re_${a.orderId}`, token: "tok_secret" } }
      : { happened: false };
  },
});
const email = defineTool({
  name: "send_email",
  input: z.object({ to: z.string() }),
  intent: (a) => ({ to: a.to }),
  execute: async () => ({ messageId: "<m@x>" }),
});
const agent = defineAgent({
  name: "reconciler",
  input: z.object({}),
  tools: { refund, send_email: email },
  run: async () => null,
});
await publishCatalog(t.pool, [agent], "test");
const agents = new Map([[agent.name, agent]]);

const answerOne = () => answerNextCheck({ pool: t.pool, worker: "w1", agents, claimMs: 5_000 });

async function stageRefund(orderId: string) {
  const args = { orderId, cents: 500 };
  return stageUnknownOutcome(t.pool, {
    agent: agent.name,
    tool: "refund",
    args,
    intent: { orderId },
  });
}

async function checkRows(taskId: string) {
  const { rows } = await t.pool.query<{ status: string; answer: unknown; answered_by: string }>(
    "select status, answer, answered_by from reconcile_checks where task_id = $1 order by id",
    [taskId],
  );
  return rows;
}

describe("check with the provider", () => {
  it("a worker calls reconcile once and records the answer; the effect and task are unchanged", async () => {
    const staged = await stageRefund("ord_1");
    provider.set("ord_1", "happened");
    const asked = await requestReconcile(t.pool, reviewer, {
      taskId: staged.taskId,
      key: staged.key,
    });
    expect(asked).toMatchObject({ ok: true, value: { created: true } });
    // Only a row: the web process ran no provider code.
    expect(calls.filter((c) => c.orderId === "ord_1")).toEqual([]);

    expect(await answerOne()).toBe(true);
    expect(await answerOne()).toBe(false);
    expect(calls.filter((c) => c.orderId === "ord_1")).toEqual([
      { key: staged.key, orderId: "ord_1" },
    ]);

    const entries = await kit.entries(staged.taskId);
    const requested = entries.find((e) => e.kind === "effect.reconcile_requested");
    expect(requested).toMatchObject({ actor: reviewer.actor, key: staged.key });
    const reconciled = entries.find((e) => e.kind === "effect.reconciled");
    expect(reconciled).toMatchObject({
      actor: "worker:w1",
      key: staged.key,
      data: {
        tool: "refund",
        requestedBy: reviewer.actor,
        happened: true,
        // The tool's sensitive paths are redacted like any result in the ledger.
        result: { refundId: "re_ord_1", token: "[redacted]" },
      },
    });
    expect(await checkRows(staged.taskId)).toEqual([
      {
        status: "answered",
        answered_by: "worker:w1",
        answer: { happened: true, result: { refundId: "re_ord_1", token: "[redacted]" } },
      },
    ]);
    // Never the outcome by itself: the reviewer still resolves.
    expect((await kit.effects(staged.taskId))[0]).toMatchObject({ status: "started" });
    expect(await kit.task(staged.taskId)).toMatchObject({
      status: "dead",
      version: staged.version,
    });
  });

  it("a double click asks once per pending check; after the answer a new click asks again", async () => {
    const staged = await stageRefund("ord_2");
    const input = { taskId: staged.taskId, key: staged.key };
    const [a, b] = await Promise.all([
      requestReconcile(t.pool, reviewer, input),
      requestReconcile(t.pool, reviewer, input),
    ]);
    if (!a.ok || !b.ok) throw new Error("a request was refused");
    expect(a.value.checkId).toBe(b.value.checkId);
    expect([a.value.created, b.value.created].sort()).toEqual([false, true]);
    expect(
      (await kit.kinds(staged.taskId)).filter((k) => k === "effect.reconcile_requested"),
    ).toHaveLength(1);
    expect(await answerOne()).toBe(true);
    expect(calls.filter((c) => c.orderId === "ord_2")).toHaveLength(1);
    expect(await checkRows(staged.taskId)).toEqual([
      expect.objectContaining({ status: "answered", answer: { happened: false } }),
    ]);
    const again = await requestReconcile(t.pool, reviewer, input);
    expect(again).toMatchObject({ ok: true, value: { created: true } });
    expect(again.ok && again.value.checkId).not.toBe(a.value.checkId);
    expect(await answerOne()).toBe(true);
  });

  it("a failing provider is recorded as failed, with the error, for the reviewer to see", async () => {
    const staged = await stageRefund("ord_3");
    provider.set("ord_3", "throw");
    await requestReconcile(t.pool, reviewer, { taskId: staged.taskId, key: staged.key });
    expect(await answerOne()).toBe(true);
    const failed = (await kit.entries(staged.taskId)).find(
      (e) => e.kind === "effect.reconcile_failed",
    );
    expect(failed).toMatchObject({
      actor: "worker:w1",
      data: {
        requestedBy: reviewer.actor,
        error: { message: "reconcile: payments API 503" },
      },
    });
    expect(await checkRows(staged.taskId)).toEqual([
      expect.objectContaining({
        status: "failed",
        answer: { error: "reconcile: payments API 503" },
      }),
    ]);
    expect((await kit.effects(staged.taskId))[0]).toMatchObject({ status: "started" });
  });

  it("a tool without reconcile is refused, and a worker whose code has none says so", async () => {
    const staged = await stageUnknownOutcome(t.pool, {
      agent: agent.name,
      tool: "send_email",
      args: { to: "ada@example.com" },
      intent: { to: "ada@example.com" },
    });
    const refused = await requestReconcile(t.pool, reviewer, {
      taskId: staged.taskId,
      key: staged.key,
    });
    expect(refused).toMatchObject({ ok: false, code: "conflict" });
    expect(!refused.ok && refused.message).toContain("send_email has no reconcile");
    expect(await checkRows(staged.taskId)).toEqual([]);
    expect(await kit.kinds(staged.taskId)).not.toContain("effect.reconcile_requested");

    // A catalog published by older code that had a reconcile: the worker refuses the check.
    await t.pool.query(
      `insert into reconcile_checks (task_id, effect_key, agent, tool, requested_by)
       values ($1, $2, $3, 'send_email', 'user:someone@example.com')`,
      [staged.taskId, staged.key, agent.name],
    );
    expect(await answerOne()).toBe(true);
    expect(await checkRows(staged.taskId)).toEqual([expect.objectContaining({ status: "failed" })]);
    const failed = (await kit.entries(staged.taskId)).find(
      (e) => e.kind === "effect.reconcile_failed",
    );
    expect(JSON.stringify(failed?.data)).toContain("has no reconcile in the code this worker runs");
  });

  it("authorizes itself: a role without outcomes:resolve, a task not dead, an effect in flight", async () => {
    const staged = await stageRefund("ord_4");
    const input = { taskId: staged.taskId, key: staged.key };
    expect(await requestReconcile(t.pool, ops, input)).toMatchObject({
      ok: false,
      code: "forbidden",
    });
    await t.pool.query(
      "update effects set lease_owner = 'w9', lease_expires_at = now() + interval '1 minute' where key = $1",
      [staged.key],
    );
    // The task-actions table refuses it first: no effect of the task has an unknown outcome.
    expect(await requestReconcile(t.pool, reviewer, input)).toMatchObject({
      ok: false,
      code: "conflict",
      message: expect.stringContaining("no effect whose outcome is unknown"),
    });
    await t.pool.query("update tasks set status = 'rejected', dead_reason = null where id = $1", [
      staged.taskId,
    ]);
    expect(await requestReconcile(t.pool, reviewer, input)).toMatchObject({
      ok: false,
      code: "conflict",
      message: "cannot check with the provider about a task that is rejected",
    });
    expect(await checkRows(staged.taskId)).toEqual([]);
    expect(await kit.kinds(staged.taskId)).not.toContain("effect.reconcile_requested");
  });

  it("a running worker answers a request it is notified of", async () => {
    const staged = await stageRefund("ord_5");
    provider.set("ord_5", "happened");
    const worker = await startWorker({
      pool: t.pool,
      agents: [agent],
      concurrency: 1,
      pollMs: 60_000,
      log: () => {},
    });
    try {
      await requestReconcile(t.pool, reviewer, { taskId: staged.taskId, key: staged.key });
      await kit.waitFor(staged.taskId, (_, entries) =>
        entries.some((e) => e.kind === "effect.reconciled"),
      );
    } finally {
      await worker.stop(1_000);
    }
    expect(calls.filter((c) => c.orderId === "ord_5")).toHaveLength(1);
  });
});
