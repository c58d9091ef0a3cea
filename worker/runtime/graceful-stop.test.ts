// stop(graceMs), what the worker process calls on SIGTERM: no new claims; in-flight attempts
// either finish within the grace period or are handed back at once, without spending an
// attempt, and another worker picks them up promptly.
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../db/testing/database";
import { defineAgent, defineTool } from "../../lib/sdk/define";
import { runtimeTestKit, setGlobalPolicy } from "./test-support";
import { startWorker } from "./worker";
import type { RunningWorker } from "./worker-config";

const t = await setUpTestDatabase("graceful_stop");
const kit = runtimeTestKit(t.pool);
await setGlobalPolicy(t.pool, { maxAttempts: 3, backoffMs: 5, attemptTimeoutMs: 10_000 });

const calls = new Map<string, number>();
const count = (what: string) => calls.get(what) ?? 0;
const bump = (what: string) => calls.set(what, count(what) + 1);
/** When each marker's "work" step returned. */
const finishedAt = new Map<string, number>();
/** Markers whose first "work" run waits until its attempt is aborted. */
const blockFirstRun = new Set<string>();

const send = defineTool({
  name: "send",
  input: z.object({ id: z.string() }),
  intent: (a) => ({ id: a.id }),
  execute: async (a) => {
    bump(`send:${a.id}`);
    return { sent: a.id };
  },
});

const slow = defineAgent({
  name: "slow",
  input: z.object({ id: z.string(), workMs: z.number() }),
  tools: { send },
  run: async (ctx, input) => {
    await ctx.step("prepare", async () => {
      bump(`prepare:${input.id}`);
      return input.id;
    });
    await ctx.tool("send", { id: input.id });
    return ctx.step("work", async () => {
      bump(`work:${input.id}`);
      const block = blockFirstRun.has(input.id) && count(`work:${input.id}`) === 1;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, block ? 60_000 : input.workMs);
        ctx.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(ctx.signal.reason);
        });
      });
      finishedAt.set(input.id, Date.now());
      return { done: input.id, by: ctx.attempt };
    });
  },
});

const started: RunningWorker[] = [];
async function worker(id: string, pollMs: number): Promise<RunningWorker> {
  const w = await startWorker({
    pool: t.pool,
    agents: [slow],
    concurrency: 2,
    leaseMs: 1_000,
    pollMs,
    id,
    log: () => {},
  });
  started.push(w);
  return w;
}
afterAll(() => Promise.all(started.map((w) => w.stop(500))));

/** Past "prepare" and "send": the attempt is inside its "work" step. */
const working = (id: string) =>
  kit.waitFor(id, (_, e) => e.some((x) => x.kind === "effect.succeeded"));

describe("a worker stopping with work in flight", () => {
  it("finishes what completes within the grace period and claims nothing new", async () => {
    const a = await worker("finisher", 50);
    const id = await kit.enqueue("slow", { id: "g1", workMs: 1_000 });
    await working(id);
    const began = Date.now();
    const stopping = a.stop(5_000);
    // Arrives while the worker is still finishing g1 (by a notification it still listens to).
    await new Promise((r) => setTimeout(r, 50));
    const late = await kit.enqueue("slow", { id: "g2", workMs: 0 });
    await stopping;
    expect(Date.now() - began).toBeLessThan(4_000);
    expect(finishedAt.get("g1")).toBeGreaterThan(began);

    expect(await kit.task(id)).toMatchObject({
      status: "succeeded",
      attempts: 1,
      result: { done: "g1", by: 1 },
    });
    expect(await kit.kinds(id)).not.toContain("task.requeued");
    expect(await kit.task(late)).toMatchObject({ status: "queued", attempts: 0 });
    expect(await kit.kinds(late)).toEqual(["task.enqueued"]);
    expect(a.active()).toBe(0);
  });

  it("hands back what outlasts the grace period, uncounted, and another worker takes it at once", async () => {
    blockFirstRun.add("g3");
    const a = await worker("leaver", 50);
    const id = await kit.enqueue("slow", { id: "g3", workMs: 0 });
    await working(id);
    // The other worker polls rarely: only the hand-back's notification can wake it in time.
    const b = await worker("taker", 30_000);

    const began = Date.now();
    await a.stop(200);
    expect(Date.now() - began).toBeLessThan(4_000);
    const handedBack = (await kit.entries(id)).find((e) => e.kind === "task.requeued");
    expect(handedBack).toMatchObject({
      actor: "worker:leaver",
      data: { attempt: 1, why: "the worker is shutting down" },
    });

    // Well inside the taker's 30 s poll: it was woken, not polling.
    const done = await kit.settle(id, 10_000);
    expect(done).toMatchObject({ status: "succeeded", attempts: 1, result: { done: "g3", by: 1 } });
    expect(count("prepare:g3")).toBe(1);
    expect(count("send:g3")).toBe(1);
    expect(count("work:g3")).toBe(2);

    const all = await kit.entries(id);
    const kinds = all.map((e) => e.kind);
    for (const lost of ["attempt.failed", "worker.lost", "retry.scheduled"]) {
      expect(kinds).not.toContain(lost);
    }
    expect((await kit.starts(id)).map((s) => s.actor)).toEqual(["worker:leaver", "worker:taker"]);
    expect(all.find((e) => e.kind === "task.succeeded")?.actor).toBe("worker:taker");
    await b.stop(500);
  });
});
