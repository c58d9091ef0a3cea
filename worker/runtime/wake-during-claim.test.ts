// A task enqueued while the worker's claim is in flight: the claim's snapshot predates it, so
// that claim finds nothing, and its NOTIFY arrives before the worker goes back to waiting. The
// worker must claim again at once rather than sleep out its poll interval (here a minute, longer
// than the test may take), which is what it did: the bench measured a p99 of one poll interval
// from enqueue to first step.
import pg from "pg";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../db/testing/database";
import { defineAgent } from "../../lib/sdk/define";
import { TASKS_CHANNEL } from "../../lib/server/commands/insert-tasks";
import { runtimeTestKit } from "./test-support";
import { startWorker } from "./worker";

const t = await setUpTestDatabase("wake_during_claim");
const kit = runtimeTestKit(t.pool);

const quick = defineAgent({
  name: "quick",
  input: z.object({ n: z.number() }),
  tools: {},
  run: async (_ctx, input) => ({ n: input.n }),
});

/** While armed, the worker's next claim statement returns only after `during` has run. */
function interceptNextClaim(during: () => Promise<void>): { done: Promise<void> } {
  const original = pg.Client.prototype.query;
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  // biome-ignore lint/suspicious/noExplicitAny: pg's query is overloaded many ways; this passes every form through.
  pg.Client.prototype.query = function (this: pg.Client, ...args: any[]) {
    const first = args[0];
    if (first?.name !== "runtime_claim_tasks") {
      return original.apply(this, args as Parameters<typeof original>);
    }
    pg.Client.prototype.query = original;
    return (
      original.apply(this, args as Parameters<typeof original>) as unknown as Promise<unknown>
    ).then(async (result) => {
      await during();
      finish();
      return result;
    });
  } as typeof original;
  return { done };
}

describe("a wake-up during a claim", () => {
  it("is not lost: the task enqueued meanwhile runs without waiting out the poll interval", async () => {
    const worker = await startWorker({
      pool: t.pool,
      agents: [quick],
      concurrency: 4,
      leaseMs: 5_000,
      pollMs: 60_000,
      log: () => {},
    });
    try {
      // Let the first claim at start come and go: the worker now sleeps for a minute.
      await new Promise((r) => setTimeout(r, 500));
      let taskId = "";
      const claim = interceptNextClaim(async () => {
        taskId = await kit.enqueue("quick", { n: 1 }); // its NOTIFY comes during the claim
        await new Promise((r) => setTimeout(r, 500)); // time for the listener to receive it
      });
      // Wake the worker so it claims: that claim runs before the task exists.
      await t.pool.query("select pg_notify($1, '')", [TASKS_CHANNEL]);
      await claim.done;
      await vi.waitFor(async () => expect((await kit.task(taskId)).status).toBe("succeeded"), {
        timeout: 20_000,
        interval: 50,
      });
    } finally {
      await worker.stop(1_000);
    }
  }, 40_000);
});
