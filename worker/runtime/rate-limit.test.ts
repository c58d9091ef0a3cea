// Tool rate limits and providers' 429s against a real database: a call over the limit waits
// (on its lease when the wait is short, in the queue when it is long), a 429 sends the task back
// until Retry-After, and neither spends an attempt nor counts toward maxAttempts.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { LedgerTimeline } from "../../components/tasks/ledger-timeline";
import { withTransaction } from "../../db/client";
import { setUpTestDatabase } from "../../db/testing/database";
import { testViewer } from "../../lib/auth/testing";
import { defineAgent, defineTool } from "../../lib/sdk/define";
import { RateLimitedError, rateLimitedFrom } from "../../lib/sdk/errors";
import { appendLedger, taskStream } from "../../lib/server/ledger/append-ledger";
import { getTaskDetail } from "../../lib/server/queries/get-task-detail";
import { takeRateLimitSlot } from "./rate-limit";
import { pingAgent, runtimeTestKit } from "./test-support";

const t = await setUpTestDatabase("rate_limit");
const kit = runtimeTestKit(t.pool);

describe("tool rate limits", () => {
  it("sits out a short wait on the lease and performs the call in the same attempt", async () => {
    const { agent, calls } = pingAgent("rl-short", { limit: 1, periodMs: 400 });
    const first = await kit.enqueue(agent.name, { n: 1 });
    const second = await kit.enqueue(agent.name, { n: 2 });
    expect((await kit.runOneAttempt("w-a", [agent]))?.outcome).toBe("succeeded");
    expect((await kit.runOneAttempt("w-a", [agent]))?.outcome).toBe("succeeded");
    expect(calls).toHaveLength(2);
    expect((calls[1] ?? 0) - (calls[0] ?? 0)).toBeGreaterThanOrEqual(390);
    const waited = (await kit.entries(second)).filter((e) => e.kind === "effect.rate_limited");
    expect(waited).toHaveLength(1);
    expect(waited[0]?.data).toMatchObject({ source: "limit", handedBack: false, limit: 1 });
    expect((await kit.task(second)).attempts).toBe(1);
    expect((await kit.effects(second))[0]?.status).toBe("succeeded");
    expect(await kit.kinds(first)).not.toContain("effect.rate_limited");
  });

  it("hands a long wait back to the queue without spending an attempt or calling the provider", async () => {
    const { agent, calls } = pingAgent("rl-long", { limit: 1, periodMs: 60_000 });
    await kit.enqueue(agent.name, { n: 1 });
    const second = await kit.enqueue(agent.name, { n: 2 });
    expect((await kit.runOneAttempt("w-a", [agent]))?.outcome).toBe("succeeded");
    const started = Date.now();
    expect((await kit.runOneAttempt("w-a", [agent]))?.outcome).toBe("requeued");
    expect(calls).toHaveLength(1);
    const row = await kit.task(second);
    expect(row.status).toBe("queued");
    expect(row.attempts).toBe(0);
    expect(row.run_at.getTime()).toBeGreaterThan(started + 50_000);
    const [effect] = await kit.effects(second);
    // Released as not performed: the next attempt claims the same key again and acts.
    expect(effect?.status).toBe("failed");
    expect(effect?.lease_owner).toBeNull();
    const kinds = await kit.kinds(second);
    expect(kinds.slice(-2)).toEqual(["effect.rate_limited", "task.requeued"]);
  });

  it("spends no slot on an effect that is only deduplicated", async () => {
    let calls = 0;
    const once = defineTool({
      name: "ping_once",
      input: z.object({ n: z.number() }),
      intent: (a) => a,
      rateLimit: { limit: 1, periodMs: 60_000 },
      execute: async (a) => {
        calls++;
        return { pong: a.n };
      },
    });
    const agent = defineAgent({
      name: "rl-dedup",
      input: z.object({ n: z.number() }),
      tools: { ping_once: once },
      // The same intent twice: the second call is the first's key, already succeeded.
      run: async (ctx, input) => [
        await ctx.tool("ping_once", { n: input.n }),
        await ctx.tool("ping_once", { n: input.n }),
      ],
    });
    const id = await kit.enqueue(agent.name, { n: 7 });
    expect((await kit.runOneAttempt("w-a", [agent]))?.outcome).toBe("succeeded");
    expect(calls).toBe(1);
    const kinds = await kit.kinds(id);
    expect(kinds).toContain("effect.deduplicated");
    expect(kinds).not.toContain("effect.rate_limited");
  });

  it("ends the claim as not performed when the limit's key cannot be read", async () => {
    const keyed = defineTool({
      name: "ping_keyed",
      input: z.object({ merchant: z.string() }),
      intent: (a) => a,
      rateLimit: { limit: 5, periodMs: 1_000, key: (a) => a.merchant },
      execute: async (a) => ({ pong: a.merchant }),
    });
    const agent = defineAgent({
      name: "rl-bad-key",
      input: z.object({ merchant: z.string() }),
      tools: { ping_keyed: keyed },
      run: (ctx, input) => ctx.tool("ping_keyed", { merchant: input.merchant }),
    });
    const id = await kit.enqueue(agent.name, { merchant: "" });
    expect((await kit.runOneAttempt("w-a", [agent]))?.outcome).toBe("dead");
    expect(await kit.task(id)).toMatchObject({
      dead_reason: "non_retryable",
      last_error: { message: expect.stringMatching(/rateLimit\.key must return a string/) },
    });
    // Not left claimed under the worker (its heartbeat would renew it): nothing was sent.
    expect((await kit.effects(id))[0]).toMatchObject({ status: "failed", lease_owner: null });
  });

  it("keeps at most `limit` stamps in any window, and follows a limit changed in code", async () => {
    const spec = { limit: 3, periodMs: 60_000 };
    const take = async (limit = spec.limit) => {
      const slot = await takeRateLimitSlot(t.pool, "sql-bucket", { ...spec, limit });
      return slot.granted ? 0 : slot.waitMs;
    };
    const taken = [];
    for (let i = 0; i < 4; i++) taken.push(await take());
    expect(taken.slice(0, 3)).toEqual([0, 0, 0]);
    expect(taken[3]).toBeGreaterThan(50_000);
    // Lowered to 2: the newest two of the three still fill it. Raised to 5: two more go.
    expect(await take(2)).toBeGreaterThan(0);
    expect(await take(5)).toBe(0);
    expect(await take(5)).toBe(0);
    expect(await take(5)).toBeGreaterThan(0);
    const { rows } = await t.pool.query(
      "select cardinality(stamps) as n from rate_limits where bucket = 'sql-bucket'",
    );
    expect(rows[0].n).toBe(5);
  });

  it("grants exactly `limit` of many racing takers, the first of them creating the row", async () => {
    const spec = { limit: 10, periodMs: 60_000 };
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => takeRateLimitSlot(t.pool, "race-bucket", spec)),
    );
    expect(answers.filter((a) => a.granted)).toHaveLength(10);
    const { rows } = await t.pool.query(
      "select cardinality(stamps) as n from rate_limits where bucket = 'race-bucket'",
    );
    expect(rows[0].n).toBe(10);
  });

  it("counts a keyed limit per key", async () => {
    const spec = { limit: 1, periodMs: 60_000 };
    const granted = async (bucket: string) =>
      (await takeRateLimitSlot(t.pool, bucket, spec)).granted;
    expect(await granted("refund:m-1")).toBe(true);
    expect(await granted("refund:m-2")).toBe(true);
    expect(await granted("refund:m-1")).toBe(false);
  });
});

describe("a provider's 429", () => {
  let requests = 0;
  const provider = createServer((_req, res) => {
    requests++;
    if (requests <= 3) {
      res.writeHead(429, { "retry-after": "1" });
      res.end("slow down");
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ id: "re_1" }));
  });
  afterAll(() => provider.close());

  it("sends the task back until Retry-After, spends no attempt and performs the effect once", async () => {
    await new Promise<void>((r) => provider.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/`;
    const refund = defineTool({
      name: "refund",
      input: z.object({ order: z.string() }),
      intent: (a) => a,
      execute: async () => {
        const res = await fetch(url, { method: "POST" });
        if (res.status === 429) throw rateLimitedFrom(res);
        return (await res.json()) as { id: string };
      },
    });
    const agent = defineAgent({
      name: "rl-429",
      input: z.object({ order: z.string() }),
      tools: { refund },
      run: (ctx, input) => ctx.tool("refund", { order: input.order }),
    });
    const id = await kit.enqueue(agent.name, { order: "o-1" }, { policy: { maxAttempts: 1 } });
    for (let i = 0; i < 3; i++) {
      const before = Date.now();
      expect((await kit.runOneAttempt("w-a", [agent]))?.outcome).toBe("requeued");
      const row = await kit.task(id);
      expect(row).toMatchObject({ status: "queued", attempts: 0 });
      expect(row.run_at.getTime()).toBeGreaterThanOrEqual(before + 900);
      await kit.release(id);
    }
    expect((await kit.runOneAttempt("w-a", [agent]))?.outcome).toBe("succeeded");
    const row = await kit.task(id);
    expect(row).toMatchObject({ status: "succeeded", attempts: 1, result: { id: "re_1" } });
    expect(requests).toBe(4);
    const effects = await kit.effects(id);
    expect(effects).toHaveLength(1);
    expect(effects[0]).toMatchObject({ status: "succeeded", result: { id: "re_1" } });
    const entries = await kit.entries(id);
    const limited = entries.filter((e) => e.kind === "effect.rate_limited");
    expect(limited.map((e) => e.data)).toMatchObject([
      { source: "provider", retryAfterMs: 1000, count: 1 },
      { source: "provider", retryAfterMs: 1000, count: 2 },
      { source: "provider", retryAfterMs: 1000, count: 3 },
    ]);
    expect(entries.filter((e) => e.kind === "effect.succeeded")).toHaveLength(1);
    expect(entries.map((e) => e.kind)).not.toContain("task.dead_lettered");
    expect(entries.map((e) => e.kind)).not.toContain("attempt.failed");

    // The task page says so in its ledger timeline.
    const detail = await getTaskDetail(t.db, testViewer("ops"), id);
    if (!detail) throw new Error(`no task ${id}`);
    const html = renderToStaticMarkup(
      createElement(LedgerTimeline, {
        entries: detail.timeline.entries,
        gap: null,
        effectKeys: [],
      }),
    ).replaceAll("<!-- -->", "");
    expect(html).toContain(
      "refund · the provider answered 429 (2 for this effect): back in the queue for 1000 ms",
    );
  });

  it("spends an attempt on a 429 past the 100th of one effect, so it cannot loop forever", async () => {
    const always = defineTool({
      name: "always_limited",
      input: z.object({ order: z.string() }),
      intent: (a) => a,
      execute: async (): Promise<null> => {
        throw new RateLimitedError({ retryAfterMs: 5 });
      },
    });
    const agent = defineAgent({
      name: "rl-forever",
      input: z.object({ order: z.string() }),
      tools: { always_limited: always },
      run: (ctx, input) => ctx.tool("always_limited", { order: input.order }),
    });
    const id = await kit.enqueue(agent.name, { order: "o-9" }, { policy: { maxAttempts: 2 } });
    expect((await kit.runOneAttempt("w-a", [agent]))?.outcome).toBe("requeued");
    // Stage 99 more 429s of the same effect, as if it had been sent back 99 more times.
    const [effect] = await kit.effects(id);
    if (!effect) throw new Error("no effect");
    await withTransaction(t.pool, (c) =>
      appendLedger(
        c,
        taskStream(id),
        Array.from({ length: 99 }, () => ({
          kind: "effect.rate_limited",
          actor: "worker:w-a",
          taskId: id,
          key: effect.key,
          data: { tool: "always_limited", source: "provider", retryAfterMs: 5 },
        })),
      ),
    );
    await kit.release(id);
    expect((await kit.runOneAttempt("w-a", [agent]))?.outcome).toBe("retry_wait");
    expect(await kit.task(id)).toMatchObject({ status: "retry_wait", attempts: 1 });
    const entries = await kit.entries(id);
    expect(entries.filter((e) => e.kind === "effect.rate_limited")).toHaveLength(100);
    expect(entries.at(-3)).toMatchObject({ kind: "effect.failed", data: { performed: "no" } });
    expect(entries.at(-1)?.kind).toBe("retry.scheduled");
  });
});
