// Approving a dead task: it resumes from its last completed step with a fresh attempt budget.
// Completed steps return their journaled results and a performed effect is not performed again.

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../db/testing/database";
import { operator } from "../../lib/domain/access";
import { attemptStartOf } from "../../lib/domain/attempt-start";
import { defineAgent, defineTool } from "../../lib/sdk/define";
import { approveTask } from "../../lib/server/commands/approve-task";
import { runtimeTestKit } from "./test-support";
import { workerForFile } from "./test-worker";

const t = await setUpTestDatabase("approve_dead");
const kit = runtimeTestKit(t.pool);

const calls = new Map<string, number>();
const count = (what: string) => calls.get(what) ?? 0;
const bump = (what: string) => calls.set(what, count(what) + 1);
/** How many more times the last step fails, per task marker. */
const failures = new Map<string, number>();
/** ctx.attempt as each run of the last step saw it. */
const attemptsSeen = new Map<string, number[]>();

const send = defineTool({
  name: "send",
  input: z.object({ id: z.string(), text: z.string() }),
  intent: (a) => ({ id: a.id }),
  execute: async (a) => {
    bump(`send:${a.id}`);
    return { sent: a.text };
  },
});

const resumer = defineAgent({
  name: "resumer",
  input: z.object({ id: z.string() }),
  tools: { send },
  run: async (ctx, input) => {
    const text = await ctx.step("compose", async () => {
      bump(`compose:${input.id}`);
      return `hello ${input.id}`;
    });
    const sent = await ctx.tool("send", { id: input.id, text });
    attemptsSeen.set(input.id, [...(attemptsSeen.get(input.id) ?? []), ctx.attempt]);
    const left = failures.get(input.id) ?? 0;
    if (left > 0) {
      failures.set(input.id, left - 1);
      throw new Error(`the ledger of record is down (${left} more)`);
    }
    return sent;
  },
});

workerForFile(t.pool, {
  policy: { maxAttempts: 3, backoffMs: 5, attemptTimeoutMs: 5_000 },
  agents: [resumer],
  concurrency: 2,
  id: "w1",
});

describe("approve a dead task", () => {
  it("resumes from the last completed step with a fresh attempt budget; attempt numbers keep counting", async () => {
    failures.set("a1", 5);
    const id = await kit.enqueue("resumer", { id: "a1" });
    const dead = await kit.settle(id);
    expect(dead).toMatchObject({ status: "dead", dead_reason: "exhausted", attempts: 3 });
    expect(attemptsSeen.get("a1")).toEqual([1, 2, 3]);

    const approved = await approveTask(t.pool, operator("rita@example.com"), {
      taskId: id,
      version: dead.version,
      note: "the ledger of record is back",
    });
    expect(approved).toMatchObject({
      ok: true,
      value: { id, status: "queued", version: dead.version + 1 },
    });

    // Two more failures fit only in a fresh budget: the old count would end it at once. The
    // number goes on (4, 5, 6), so the page says "after 6 attempts" and /why lists 1 to 6.
    const done = await kit.settle(id);
    expect(done).toMatchObject({
      status: "succeeded",
      attempts: 6,
      result: { sent: "hello a1" },
    });
    const { rows: budget } = await t.pool.query("select attempt_base from tasks where id = $1", [
      id,
    ]);
    expect(budget).toEqual([{ attempt_base: 3 }]);
    expect(attemptsSeen.get("a1")).toEqual([1, 2, 3, 4, 5, 6]);
    expect(count("compose:a1")).toBe(1);
    expect(count("send:a1")).toBe(1);

    const { rows: steps } = await t.pool.query(
      "select seq, name, attempt from journal_steps where task_id = $1 order by seq",
      [id],
    );
    expect(steps).toEqual([
      { seq: 1, name: "compose", attempt: 1 },
      { seq: 2, name: "send", attempt: 1 },
    ]);
    expect(await kit.effects(id)).toEqual([
      expect.objectContaining({ status: "succeeded", attempts: 1 }),
    ]);

    const all = await kit.entries(id);
    const review = all.findIndex((e) => e.kind === "review.approved");
    expect(all[review]).toMatchObject({
      actor: "rita@example.com",
      data: { from: "dead", deadReason: "exhausted", note: "the ledger of record is back" },
    });
    const after = all.slice(review + 1);
    // The attempts' starts after the review (each on its attempt's first entry).
    const startsAfter = after.flatMap((e) => {
      const start = attemptStartOf({ ...e, at: new Date(0) });
      return start ? [start] : [];
    });
    expect(startsAfter).toEqual([
      expect.objectContaining({ attempt: 4 }),
      expect.objectContaining({ attempt: 5 }),
      expect.objectContaining({ attempt: 6 }),
    ]);
    for (const kind of ["step.completed", "effect.started", "effect.deduplicated"]) {
      expect(after.map((e) => e.kind)).not.toContain(kind);
    }
  });

  it("a stale approve changes nothing and says why", async () => {
    failures.set("a2", 3);
    const id = await kit.enqueue("resumer", { id: "a2" });
    const dead = await kit.settle(id);
    const first = await approveTask(t.pool, operator("rita@example.com"), {
      taskId: id,
      version: dead.version,
    });
    expect(first.ok).toBe(true);
    const again = await approveTask(t.pool, operator("sam@example.com"), {
      taskId: id,
      version: dead.version,
    });
    expect(again).toMatchObject({ ok: false, code: "conflict" });
    await kit.settle(id);
    const approvals = (await kit.entries(id)).filter((e) => e.kind === "review.approved");
    expect(approvals.map((e) => e.actor)).toEqual(["rita@example.com"]);
    expect(count("send:a2")).toBe(1);
  });
});
