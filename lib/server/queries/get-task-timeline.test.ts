// getTaskTimeline on what a real worker recorded: a tool that fails once (not performed) and
// succeeds on the retry gives queued → run 1 (failed) → retry wait → run 2 → succeeded.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { withTransaction } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import { runtimeTestKit, setGlobalPolicy } from "../../../worker/runtime/test-support";
import { testTokenViewer, testViewer } from "../../auth/testing";
import { AuthError } from "../../domain/access";
import { defineAgent, defineTool } from "../../sdk/define";
import { EffectNotPerformedError } from "../../sdk/errors";
import { appendLedger, taskStream } from "../ledger/append-ledger";
import { getTaskTimeline, TIMELINE_MAX_ENTRIES } from "./get-task-timeline";

const t = await setUpTestDatabase("task_timeline");
const kit = runtimeTestKit(t.pool);
const ops = testViewer("ops");

const tries = new Map<string, number>();
const charge = defineTool({
  name: "charge",
  input: z.object({ id: z.string() }),
  intent: (a) => ({ id: a.id }),
  execute: async (a) => {
    const n = (tries.get(a.id) ?? 0) + 1;
    tries.set(a.id, n);
    if (n === 1) throw new EffectNotPerformedError("payments API 502 before acting");
    return { charged: a.id };
  },
});
const agent = defineAgent({
  name: "timeline-agent",
  input: z.object({ id: z.string() }),
  tools: { charge },
  run: async (ctx, input) => {
    await ctx.step("prepare", async () => ({ id: input.id }));
    return ctx.tool("charge", { id: input.id });
  },
});

await setGlobalPolicy(t.pool, { maxAttempts: 3, backoffMs: 60_000, attemptTimeoutMs: 5_000 });

describe("getTaskTimeline", () => {
  it("shows a task that retried once: queued, the failed run, the retry wait, the run that succeeded", async () => {
    const taskId = await kit.enqueue(agent.name, { id: "c1" });
    expect((await kit.runOneAttempt("w1", [agent]))?.outcome).toBe("retry_wait");
    await new Promise((r) => setTimeout(r, 30));
    // The test worker backs off with zero jitter; make the retry due now, wherever it was set.
    await kit.release(taskId);
    expect((await kit.runOneAttempt("w2", [agent]))?.outcome).toBe("succeeded");

    const timeline = await getTaskTimeline(t.db, ops, taskId);
    expect(timeline).not.toBeNull();
    expect(timeline?.segments.map((s) => [s.kind, s.attempt, s.open, s.lost, s.note])).toEqual([
      ["queued", 1, false, false, null],
      ["running", 1, false, false, "failed"],
      ["retry_wait", 1, false, false, null],
      ["running", 2, false, false, "succeeded"],
    ]);
    expect(timeline?.end).toMatchObject({ kind: "succeeded", attempt: 2 });
    expect(timeline?.truncated).toBe(false);
    const [, first, wait, second] = timeline?.segments ?? [];
    expect(wait?.durationMs).toBeGreaterThanOrEqual(25);
    // The step journaled on attempt 1 is returned from the journal on attempt 2, not run again.
    expect(first?.children.map((c) => [c.kind, c.name, c.outcome])).toEqual([
      ["step", "prepare", null],
      ["tool", "charge", "failed"],
    ]);
    expect(second?.children.map((c) => [c.kind, c.name, c.outcome])).toEqual([
      ["tool", "charge", "succeeded"],
    ]);
    // The step recorded when it began (startedAt): the read keeps it, so it has a duration.
    const step = first?.children[0];
    expect(step?.start).not.toBeNull();
    expect(step?.durationMs).toBe(Date.parse(step?.end ?? "") - Date.parse(step?.start ?? ""));
    const call = second?.children[0];
    expect(call?.durationMs).not.toBeNull();
    expect(call?.durationMs).toBe(Date.parse(call?.end ?? "") - Date.parse(call?.start ?? ""));
    // Contiguous: each segment starts where the one before ended.
    const segments = timeline?.segments ?? [];
    for (let i = 1; i < segments.length; i++) {
      expect(segments[i]?.start).toBe(segments[i - 1]?.end);
    }
    expect(timeline?.totalMs).toBe(
      Date.parse(timeline?.end?.at ?? "") - Date.parse(segments[0]?.start ?? ""),
    );
  });

  it("is read with tasks:read, like the rest of the task page", async () => {
    const taskId = await kit.enqueue(agent.name, { id: "c2" }, { held: true });
    await expect(getTaskTimeline(t.db, null, taskId)).rejects.toThrow(AuthError);
    await expect(
      getTaskTimeline(t.db, testTokenViewer(["ledger:read"]), taskId),
    ).rejects.toMatchObject({ status: 403 });
    const still = await getTaskTimeline(t.db, testTokenViewer(["tasks:read"]), taskId);
    expect(still?.segments).toMatchObject([{ kind: "queued", attempt: 1, open: true }]);
    expect(still?.end).toBeNull();
    expect(await getTaskTimeline(t.db, ops, "00000000-0000-4000-8000-000000000000")).toBeNull();
  });

  it("reads at most TIMELINE_MAX_ENTRIES entries and says so; payloads stay in the database", async () => {
    const taskId = await kit.enqueue(agent.name, { id: "c3" }, { held: true });
    const entries = Array.from({ length: TIMELINE_MAX_ENTRIES + 5 }, (_, i) => ({
      kind: i % 2 === 0 ? "attempt.started" : "task.requeued",
      actor: "worker:w1",
      taskId,
      data: { attempt: 1, why: "the worker is shutting down", secret: "hunter2" },
    }));
    await withTransaction(t.pool, (c) => appendLedger(c, taskStream(taskId), entries));
    const timeline = await getTaskTimeline(t.db, ops, taskId);
    expect(timeline?.truncated).toBe(true);
    expect(timeline?.entriesRead).toBe(TIMELINE_MAX_ENTRIES);
    // The bar stops at the last entry read, not now.
    expect(timeline?.asOf).toBe(timeline?.segments.at(-1)?.end);
    expect(JSON.stringify(timeline)).not.toContain("hunter2");
  });
});
