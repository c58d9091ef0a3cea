// Review commands against a live worker: approvals bound to key and payload, reject, replay
// with an accurate preview, resolving unknown outcomes, cancel, policy changes, and two
// reviewers acting at once.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { withTransaction } from "../../db/client";
import { setUpTestDatabase } from "../../db/testing/database";
import { operator } from "../../lib/domain/access";
import { deriveEffectKey, payloadFingerprint } from "../../lib/domain/hash";
import { defineAgent, defineTool } from "../../lib/sdk/define";
import { approveTask } from "../../lib/server/commands/approve-task";
import { cancelTask } from "../../lib/server/commands/cancel-task";
import { insertTask } from "../../lib/server/commands/enqueue-task";
import { rejectTask } from "../../lib/server/commands/reject-task";
import { replayTask } from "../../lib/server/commands/replay-task";
import { resolveOutcome } from "../../lib/server/commands/resolve-outcome";
import { setPolicy } from "../../lib/server/commands/set-policy";
import { previewReplay } from "../../lib/server/review/preview";
import { workerForFile } from "./test-worker";

const t = await setUpTestDatabase("review");
const refunds: { orderId: string; amount: number }[] = [];
const amounts = new Map<string, number>();
const failAfterRefund = new Set<string>();

const refund = defineTool({
  name: "refund",
  input: z.object({ orderId: z.string(), amount: z.number().int() }),
  intent: (a) => ({ orderId: a.orderId }),
  requiresApproval: (a) => a.amount > 100,
  execute: async (a) => {
    refunds.push(a);
    return { refundId: `re_${a.orderId}_${a.amount}` };
  },
});

const refunder = defineAgent({
  name: "refunder",
  input: z.object({ orderId: z.string() }),
  tools: { refund },
  run: async (ctx, input) => {
    const amount = await ctx.step("amount", async () => amounts.get(input.orderId) ?? 50);
    const r = await ctx.tool("refund", { orderId: input.orderId, amount });
    if (failAfterRefund.has(input.orderId)) throw new Error("downstream failure");
    return r;
  },
});

workerForFile(t.pool, {
  policy: { maxAttempts: 2, backoffMs: 5, attemptTimeoutMs: 5_000 },
  agents: [refunder],
  concurrency: 4,
});

type Row = { status: string; version: number; dead_reason: string | null; attempts: number };
async function task(id: string): Promise<Row> {
  const { rows } = await t.pool.query<Row>(
    "select status, version, dead_reason, attempts from tasks where id = $1",
    [id],
  );
  return rows[0] as Row;
}
async function until(id: string, statuses: string[]): Promise<Row> {
  for (let i = 0; i < 400; i++) {
    const row = await task(id);
    if (statuses.includes(row.status)) return row;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(
    `task ${id} never reached ${statuses.join("/")}: ${JSON.stringify(await task(id))}`,
  );
}
async function enqueue(orderId: string, held = false): Promise<string> {
  const runAt = held ? new Date(Date.now() + 3_600_000) : undefined;
  const { taskId } = await withTransaction(t.pool, (c) =>
    insertTask(c, { agent: "refunder", input: { orderId }, runAt, actor: "test" }),
  );
  return taskId;
}
const refundsFor = (orderId: string) => refunds.filter((r) => r.orderId === orderId);

describe("approvals", () => {
  it("park a gated effect with its exact payload; approve lets it act once", async () => {
    amounts.set("o1", 500);
    const id = await enqueue("o1");
    const parked = await until(id, ["awaiting_approval"]);
    expect(refundsFor("o1")).toHaveLength(0);
    const { rows } = await t.pool.query(
      "select status, args, fingerprint from approvals where task_id = $1",
      [id],
    );
    expect(rows).toEqual([
      { status: "pending", args: { orderId: "o1", amount: 500 }, fingerprint: expect.any(String) },
    ]);

    const approved = await approveTask(t.pool, operator("rita@example.com"), {
      taskId: id,
      version: parked.version,
    });
    expect(approved.ok).toBe(true);
    expect(await until(id, ["succeeded"])).toMatchObject({ status: "succeeded" });
    expect(refundsFor("o1")).toEqual([{ orderId: "o1", amount: 500 }]);
    const used = await t.pool.query(
      "select status, decided_by, used_at from approvals where task_id = $1",
      [id],
    );
    expect(used.rows[0]).toMatchObject({
      status: "approved",
      decided_by: "rita@example.com",
      used_at: expect.any(Date),
    });
  });

  it("an approval for one payload does not authorize another", async () => {
    amounts.set("o2", 700);
    const id = await enqueue("o2", true);
    const key = deriveEffectKey(id, "refund", { orderId: "o2" });
    const other = { orderId: "o2", amount: 650 };
    await t.pool.query(
      `insert into approvals (task_id, effect_key, fingerprint, tool, args, status, decided_by, decided_at)
       values ($1, $2, $3, 'refund', $4, 'approved', 'rita@example.com', now())`,
      [id, key, payloadFingerprint(other), JSON.stringify(other)],
    );
    await t.pool.query("update tasks set run_at = now() where id = $1", [id]);
    await until(id, ["awaiting_approval"]);
    expect(refundsFor("o2")).toHaveLength(0);
    const { rows } = await t.pool.query(
      "select status, args from approvals where task_id = $1 order by id",
      [id],
    );
    expect(rows.map((r) => r.status)).toEqual(["approved", "pending"]);
    expect(rows[1].args).toEqual({ orderId: "o2", amount: 700 });
  });

  it("a replay that changes the arguments asks again and supersedes the old request", async () => {
    amounts.set("o3", 300);
    const id = await enqueue("o3");
    const parked = await until(id, ["awaiting_approval"]);
    amounts.set("o3", 400);
    const replayed = await replayTask(t.pool, operator("rita@example.com"), {
      taskId: id,
      version: parked.version,
      fromStep: 1,
    });
    expect(replayed.ok).toBe(true);
    await until(id, ["awaiting_approval"]);
    const { rows } = await t.pool.query(
      "select status, reason, args from approvals where task_id = $1 order by id",
      [id],
    );
    expect(rows).toEqual([
      {
        status: "rejected",
        reason: "superseded by a replay",
        args: { orderId: "o3", amount: 300 },
      },
      { status: "pending", reason: null, args: { orderId: "o3", amount: 400 } },
    ]);
    expect(refundsFor("o3")).toHaveLength(0);
  });

  it("reject ends the task with the reason and nothing is done", async () => {
    amounts.set("o4", 900);
    const id = await enqueue("o4");
    const parked = await until(id, ["awaiting_approval"]);
    expect(
      (
        await rejectTask(t.pool, operator("rita@example.com"), {
          taskId: id,
          version: parked.version,
          reason: "",
        })
      ).ok,
    ).toBe(false);
    const rejected = await rejectTask(t.pool, operator("rita@example.com"), {
      taskId: id,
      version: parked.version,
      reason: "fraud",
    });
    expect(rejected).toMatchObject({ ok: true, value: { status: "rejected" } });
    expect(refundsFor("o4")).toHaveLength(0);
    const { rows } = await t.pool.query(
      "select data, actor from ledger_entries where task_id = $1 and kind = 'review.rejected'",
      [id],
    );
    expect(rows[0]).toMatchObject({ actor: "rita@example.com", data: { reason: "fraud" } });
  });

  it("two reviewers at once: one wins, the other is told why", async () => {
    amounts.set("o5", 200);
    const id = await enqueue("o5");
    const parked = await until(id, ["awaiting_approval"]);
    const results = await Promise.all([
      approveTask(t.pool, operator("a@example.com"), { taskId: id, version: parked.version }),
      rejectTask(t.pool, operator("b@example.com"), {
        taskId: id,
        version: parked.version,
        reason: "no",
      }),
      approveTask(t.pool, operator("a@example.com"), { taskId: id, version: parked.version }),
    ]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    for (const r of results.filter((x) => !x.ok)) {
      expect(r).toMatchObject({
        ok: false,
        code: "conflict",
        message: expect.stringMatching(/changed since you loaded it/),
      });
    }
    const { rows } = await t.pool.query(
      "select count(*)::int as n from ledger_entries where task_id = $1 and kind in ('review.approved', 'review.rejected')",
      [id],
    );
    expect(rows[0].n).toBe(1);
  });
});

describe("replay", () => {
  it("the preview says which effects dedupe, and the replay acts on exactly the others", async () => {
    failAfterRefund.add("o6");
    const id = await enqueue("o6");
    const dead = await until(id, ["dead"]);
    expect(refundsFor("o6")).toHaveLength(1);
    const preview = await withTransaction(t.pool, (c) => previewReplay(c, id, 1));
    expect(preview.effects).toEqual([
      expect.objectContaining({
        step: 2,
        tool: "refund",
        status: "succeeded",
        outcome: "dedupe",
        mayChange: true,
      }),
    ]);
    failAfterRefund.delete("o6");
    const replayed = await replayTask(t.pool, operator("rita@example.com"), {
      taskId: id,
      version: dead.version,
      fromStep: 1,
    });
    expect(replayed.ok).toBe(true);
    // Two attempts before the replay, one after it: the number keeps counting (the replay's
    // fresh budget is the policy's two from there).
    expect(await until(id, ["succeeded"])).toMatchObject({ attempts: 3 });
    expect(refundsFor("o6")).toHaveLength(1);
    const { rows } = await t.pool.query(
      "select kind from ledger_entries where task_id = $1 order by seq",
      [id],
    );
    expect(rows.map((r) => r.kind)).toContain("effect.deduplicated");
  });

  it("refuses a step past the journal", async () => {
    failAfterRefund.add("o7");
    const id = await enqueue("o7");
    const dead = await until(id, ["dead"]);
    const r = await replayTask(t.pool, operator("rita@example.com"), {
      taskId: id,
      version: dead.version,
      fromStep: 9,
    });
    expect(r).toMatchObject({
      ok: false,
      code: "invalid",
      message: expect.stringMatching(/replay can start at step 1 to 3/),
    });
    failAfterRefund.delete("o7");
  });
});

describe("unknown outcomes", () => {
  async function deadWithUnknown(orderId: string) {
    const id = await enqueue(orderId, true);
    const key = deriveEffectKey(id, "refund", { orderId });
    const args = { orderId, amount: 50 };
    await t.pool.query(
      `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status, lease_owner, lease_expires_at)
       values ($1, $2, 2, 'refund', $3, $4, $5, 'started', 'gone', now() - interval '1 minute')`,
      [key, id, JSON.stringify({ orderId }), JSON.stringify(args), payloadFingerprint(args)],
    );
    await t.pool.query("update tasks set run_at = now() where id = $1", [id]);
    const row = await until(id, ["dead"]);
    expect(row.dead_reason).toBe("outcome_unknown");
    return { id, key, version: row.version };
  }

  it("'it happened' records the result; the task resumes without acting", async () => {
    const { id, key, version } = await deadWithUnknown("o8");
    const r = await resolveOutcome(t.pool, operator("rita@example.com"), {
      taskId: id,
      version,
      key,
      happened: true,
      result: { refundId: "re_manual" },
    });
    expect(r.ok).toBe(true);
    expect(await until(id, ["succeeded"])).toBeTruthy();
    expect(refundsFor("o8")).toHaveLength(0);
    const { rows } = await t.pool.query("select result from tasks where id = $1", [id]);
    expect(rows[0].result).toEqual({ refundId: "re_manual" });
  });

  it("'it did not' lets the effect act once with the same key", async () => {
    const { id, key, version } = await deadWithUnknown("o9");
    expect(
      (
        await resolveOutcome(t.pool, operator("rita@example.com"), {
          taskId: id,
          version,
          key,
          happened: false,
        })
      ).ok,
    ).toBe(true);
    await until(id, ["succeeded"]);
    expect(refundsFor("o9")).toHaveLength(1);
  });
});

describe("cancel and policies", () => {
  it("cancel stops a task that has not finished", async () => {
    const id = await enqueue("o10", true);
    const before = await task(id);
    expect(
      (
        await cancelTask(t.pool, operator("admin@example.com"), {
          taskId: id,
          version: before.version,
        })
      ).ok,
    ).toBe(true);
    expect((await task(id)).status).toBe("cancelled");
    const again = await cancelTask(t.pool, operator("admin@example.com"), {
      taskId: id,
      version: before.version + 1,
    });
    expect(again).toMatchObject({ ok: false, message: "cannot cancel a task that is cancelled" });
  });

  it("a policy change applies to later failures and is recorded with before, after and who", async () => {
    const stale = await setPolicy(t.pool, operator("admin@example.com"), {
      scope: "global",
      policy: { maxAttempts: 9 },
      version: 99,
    });
    expect(stale).toMatchObject({ ok: false, code: "conflict" });
    const changed = await setPolicy(t.pool, operator("admin@example.com"), {
      scope: "agent:refunder",
      policy: { maxAttempts: 1 },
      version: null,
    });
    expect(changed).toMatchObject({ ok: true, value: { version: 1 } });
    failAfterRefund.add("o11");
    const id = await enqueue("o11");
    expect(await until(id, ["dead"])).toMatchObject({ dead_reason: "exhausted", attempts: 1 });
    const { rows } = await t.pool.query(
      "select actor, data from ledger_entries where stream = 'system' and kind = 'policy.changed'",
    );
    expect(rows.at(-1)).toMatchObject({
      actor: "admin@example.com",
      data: { scope: "agent:refunder", before: null, after: { maxAttempts: 1 } },
    });
    await setPolicy(t.pool, operator("admin@example.com"), {
      scope: "agent:refunder",
      policy: {},
      version: 1,
    });
    failAfterRefund.delete("o11");
  });
});
