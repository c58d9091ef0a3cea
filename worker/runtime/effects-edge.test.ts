// The edges of performEffect against real PostgreSQL: a key another live attempt is executing,
// an unknown outcome past the provider's dedup window (with and without reconcile, and with a
// reconcile that fails), and a payload mismatch under each onPayloadMismatch policy.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../db/testing/database";
import { operator } from "../../lib/domain/access";
import { effectStartOf } from "../../lib/domain/effect-start";
import { deriveEffectKey, payloadFingerprint } from "../../lib/domain/hash";
import type { JsonValue } from "../../lib/domain/json";
import { defineAgent, defineTool } from "../../lib/sdk/define";
import { NonRetryableError } from "../../lib/sdk/errors";
import { replayTask } from "../../lib/server/commands/replay-task";
import { gate, runtimeTestKit, setGlobalPolicy } from "./test-support";
import { startWorker } from "./worker";
import type { RunningWorker } from "./worker-config";

const t = await setUpTestDatabase("effects_edge");
const kit = runtimeTestKit(t.pool);

const deliveries = new Map<string, number>();
const count = (what: string) => deliveries.get(what) ?? 0;
const deliver = (what: string) => deliveries.set(what, count(what) + 1);

const WINDOW_MS = 60_000;

const charge = defineTool({
  name: "charge",
  input: z.object({ id: z.string() }),
  intent: (a) => ({ id: a.id }),
  providerIdempotent: true,
  dedupWindowMs: WINDOW_MS,
  execute: async (a) => {
    deliver(`charge:${a.id}`);
    return { chargeId: `ch_${a.id}` };
  },
});

/** What the provider answers when asked about a key: one answer per call, in order. */
const reconcileAnswers = new Map<string, ("happened" | "not" | "throw")[]>();
const reconcileCalls = new Map<string, number>();
const refund = defineTool({
  name: "refund",
  input: z.object({ id: z.string() }),
  intent: (a) => ({ id: a.id }),
  providerIdempotent: true,
  dedupWindowMs: WINDOW_MS,
  execute: async (a) => {
    deliver(`refund:${a.id}`);
    return { refundId: `re_${a.id}` };
  },
  reconcile: async (_key, a) => {
    reconcileCalls.set(a.id, (reconcileCalls.get(a.id) ?? 0) + 1);
    const answer = reconcileAnswers.get(a.id)?.shift() ?? "not";
    if (answer === "throw") throw new Error("reconcile: payments API 503");
    return answer === "happened"
      ? { happened: true, result: { refundId: `re_${a.id}_found` } }
      : { happened: false };
  },
});

const effector = defineAgent({
  name: "effector",
  input: z.object({ id: z.string(), tool: z.enum(["charge", "refund"]) }),
  tools: { charge, refund },
  run: async (ctx, input) =>
    input.tool === "charge"
      ? ctx.tool("charge", { id: input.id })
      : ctx.tool("refund", { id: input.id }),
});

// A replay that recomputes the subject sends the same intent with other arguments.
const subjects = new Map<string, string>();
const failAfterSend = new Set<string>();
const notifyFields = {
  input: z.object({ id: z.string(), subject: z.string(), body: z.string() }),
  intent: (a: { id: string }) => ({ id: a.id }),
  sensitive: ["body"],
  execute: async (a: { id: string; subject: string }) => {
    deliver(`notify:${a.id}`);
    return { messageId: `m_${a.id}`, subject: a.subject };
  },
};
const notifyFirst = defineTool({
  name: "notify_first",
  ...notifyFields,
  onPayloadMismatch: "return-first",
});
const notifyStrict = defineTool({ name: "notify_strict", ...notifyFields });
const announcer = defineAgent({
  name: "announcer",
  input: z.object({ id: z.string(), strict: z.boolean() }),
  tools: { notify_first: notifyFirst, notify_strict: notifyStrict },
  run: async (ctx, input) => {
    const subject = await ctx.step("subject", async () => subjects.get(input.id) ?? "?");
    const args = { id: input.id, subject, body: `secret body for ${input.id}` };
    const sent = input.strict
      ? await ctx.tool("notify_strict", args)
      : await ctx.tool("notify_first", args);
    if (failAfterSend.has(input.id)) throw new NonRetryableError("downstream refused");
    return sent;
  },
});

// Run only by hand in the live-lease test, so the background worker never claims it first.
const slowGate = gate();
const slowSend = defineTool({
  name: "slow_send",
  input: z.object({ id: z.string() }),
  intent: (a) => ({ id: a.id }),
  execute: async (a) => {
    deliver(`slow:${a.id}`);
    await slowGate.wait;
    return { sent: a.id };
  },
});
const racer = defineAgent({
  name: "racer",
  input: z.object({ id: z.string() }),
  tools: { slow_send: slowSend },
  run: async (ctx, input) => ctx.tool("slow_send", { id: input.id }),
});

let worker: RunningWorker;
beforeAll(async () => {
  await setGlobalPolicy(t.pool, { maxAttempts: 3, backoffMs: 10, attemptTimeoutMs: 10_000 });
  worker = await startWorker({
    pool: t.pool,
    agents: [effector, announcer],
    concurrency: 4,
    leaseMs: 1_000,
    pollMs: 50,
    id: "w1",
    log: () => {},
  });
});
afterAll(() => worker.stop(1_000));

/** What a crashed attempt leaves: a claimed effect whose lease ran out without a result. */
async function plantUnknown(taskId: string, tool: string, id: string, ageMs: number) {
  const key = deriveEffectKey(taskId, tool, { id });
  await t.pool.query(
    `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status, lease_owner, lease_expires_at, created_at)
     values ($1, $2, 1, $3, $4, $4, $5, 'started', 'crashed-worker', now() - interval '1 second',
             now() - $6 * interval '1 millisecond')`,
    [key, taskId, tool, JSON.stringify({ id }), payloadFingerprint({ id }), ageMs],
  );
  return key;
}

describe("a key another live attempt is executing", () => {
  it("waits without acting, then returns what the other attempt recorded", async () => {
    const id = await kit.enqueue("racer", { id: "s1" });
    // Worker A claims with a task lease it never renews, and starts the slow send.
    const a = kit.runOneAttempt("A", [racer], { leaseMs: 800, effectLeaseMs: 30_000 });
    await kit.waitFor(id, () => count("slow:s1") === 1);

    // Worker B reaps A's expired task lease, retries, finds the effect in flight and waits.
    const b = await startWorker({
      pool: t.pool,
      agents: [racer],
      concurrency: 1,
      leaseMs: 1_000,
      pollMs: 50,
      id: "B",
      log: () => {},
    });
    try {
      const waiting = await kit.waitFor(id, (_, e) => e.some((x) => x.kind === "task.requeued"));
      expect(waiting.status).toBe("queued");
      expect(waiting.run_at.getTime()).toBeGreaterThan(Date.now());
      const requeued = (await kit.entries(id)).find((e) => e.kind === "task.requeued");
      expect(requeued).toMatchObject({
        actor: "worker:B",
        data: { why: expect.stringMatching(/in flight on A$/) },
      });
      const [inFlight] = await kit.effects(id);
      expect(inFlight).toMatchObject({ status: "started", lease_owner: "A", attempts: 1 });
      expect(count("slow:s1")).toBe(1);

      // A's provider answers: A records the result although it lost the task, and stops.
      slowGate.open();
      expect(await a).toEqual({ taskId: id, outcome: "lost" });
      const done = await kit.settle(id);
      expect(done).toMatchObject({ status: "succeeded", result: { sent: "s1" } });
    } finally {
      await b.stop(1_000);
    }

    expect(count("slow:s1")).toBe(1);
    const all = await kit.entries(id);
    // One claim, recorded once: by A's result, which carries it.
    expect(all.filter((e) => e.kind === "effect.started")).toEqual([]);
    expect(
      all
        .filter((e) => e.kind === "effect.succeeded")
        .map((e) => [e.actor, (e.data as { effectStarted?: unknown }).effectStarted !== undefined]),
    ).toEqual([["worker:A", true]]);
    expect(all.filter((e) => e.kind === "effect.deduplicated").map((e) => e.actor)).toEqual([
      "worker:B",
    ]);
    expect(all.map((e) => e.kind)).toContain("worker.lost");
    expect(all.map((e) => e.kind)).not.toContain("effect.outcome_unknown");
    const [effect] = await kit.effects(id);
    expect(effect).toMatchObject({ status: "succeeded", attempts: 1, result: { sent: "s1" } });
    const { rows } = await t.pool.query(
      "select seq, kind, name, effect_key from steps where task_id = $1",
      [id],
    );
    expect(rows).toEqual([{ seq: 1, kind: "tool", name: "slow_send", effect_key: effect?.key }]);
  });
});

describe("an unknown outcome and the provider's dedup window", () => {
  it("past the window, a provider-idempotent tool without reconcile is never resent", async () => {
    const id = await kit.enqueue("effector", { id: "c1", tool: "charge" }, { held: true });
    await plantUnknown(id, "charge", "c1", 2 * WINDOW_MS);
    await kit.release(id);
    expect(await kit.settle(id)).toMatchObject({
      status: "dead",
      dead_reason: "outcome_unknown",
      attempts: 1,
    });
    expect(count("charge:c1")).toBe(0);
    const unknown = (await kit.entries(id)).find((e) => e.kind === "effect.outcome_unknown");
    expect(unknown?.data).toMatchObject({
      action: "dead-letter",
      why: "past the provider's dedup window",
    });
    // The crashed claim is recorded on that entry, and marked so (no owner): a reviewer's retry
    // meeting the effect again does not record it twice.
    expect(unknown?.data).toMatchObject({
      effectStarted: { lapsed: true, actor: "worker:crashed-worker" },
    });
    expect(await kit.effects(id)).toEqual([
      expect.objectContaining({ status: "started", attempts: 1, lease_owner: null }),
    ]);
  });

  it("within the window the same tool resends with the same key, once", async () => {
    const id = await kit.enqueue("effector", { id: "c2", tool: "charge" }, { held: true });
    const key = await plantUnknown(id, "charge", "c2", 1_000);
    await kit.release(id);
    expect(await kit.settle(id)).toMatchObject({ status: "succeeded", attempts: 1 });
    expect(count("charge:c2")).toBe(1);
    const all = await kit.entries(id);
    const unknown = all.find((e) => e.kind === "effect.outcome_unknown");
    // The crashed claim was never recorded: the attempt that found it lapsed records it.
    expect(unknown?.data).toMatchObject({
      action: "resend",
      effectStarted: {
        lapsed: true,
        actor: "worker:crashed-worker",
        args: { id: "c2" },
        fingerprint: payloadFingerprint({ id: "c2" }),
      },
    });
    // The resend is a claim of its own, carried by its result: two claims, each recorded once.
    expect(all.find((e) => e.kind === "effect.succeeded")?.data).toMatchObject({
      effectStarted: { resend: true, fingerprint: payloadFingerprint({ id: "c2" }) },
    });
    expect(all.filter((e) => effectStartOf({ ...e, at: new Date(0) }) !== null)).toHaveLength(2);
    expect(await kit.effects(id)).toEqual([
      expect.objectContaining({ key, status: "succeeded", attempts: 2 }),
    ]);
  });

  it("past the window, a tool with reconcile asks the provider instead of resending", async () => {
    reconcileAnswers.set("r1", ["happened"]);
    const id = await kit.enqueue("effector", { id: "r1", tool: "refund" }, { held: true });
    await plantUnknown(id, "refund", "r1", 2 * WINDOW_MS);
    await kit.release(id);
    expect(await kit.settle(id)).toMatchObject({
      status: "succeeded",
      result: { refundId: "re_r1_found" },
    });
    expect(count("refund:r1")).toBe(0);
    expect(reconcileCalls.get("r1")).toBe(1);
    const all = await kit.entries(id);
    expect(all.find((e) => e.kind === "effect.outcome_unknown")?.data).toMatchObject({
      action: "reconcile",
    });
    expect(all.find((e) => e.kind === "effect.succeeded")?.data).toMatchObject({
      reconciled: true,
    });
  });

  it("when reconcile says it did not happen, the effect acts once with the same key", async () => {
    reconcileAnswers.set("r2", ["not"]);
    const id = await kit.enqueue("effector", { id: "r2", tool: "refund" }, { held: true });
    const key = await plantUnknown(id, "refund", "r2", 2 * WINDOW_MS);
    await kit.release(id);
    expect(await kit.settle(id)).toMatchObject({ status: "succeeded" });
    expect(count("refund:r2")).toBe(1);
    expect(await kit.effects(id)).toEqual([
      expect.objectContaining({ key, status: "succeeded", result: { refundId: "re_r2" } }),
    ]);
  });

  it("a reconcile that fails is asked again on the next attempt, not waited on forever", async () => {
    reconcileAnswers.set("r3", ["throw", "happened"]);
    const id = await kit.enqueue("effector", { id: "r3", tool: "refund" }, { held: true });
    await plantUnknown(id, "refund", "r3", 2 * WINDOW_MS);
    await kit.release(id);
    expect(await kit.settle(id)).toMatchObject({ status: "succeeded", attempts: 2 });
    expect(reconcileCalls.get("r3")).toBe(2);
    expect(count("refund:r3")).toBe(0);
    const k = await kit.kinds(id);
    expect(k.filter((x) => x === "effect.outcome_unknown")).toHaveLength(2);
    expect(k).toContain("effect.reconcile_failed");
    expect(k).not.toContain("task.requeued");
  });
});

describe("the same intent with other arguments (payload mismatch)", () => {
  /** Sends once, dies after, then a replay recomputes the subject and sends again. */
  async function replayWithNewSubject(id: string, strict: boolean) {
    subjects.set(id, "Your invoice");
    failAfterSend.add(id);
    const taskId = await kit.enqueue("announcer", { id, strict });
    const dead = await kit.settle(taskId);
    expect(dead).toMatchObject({ status: "dead", dead_reason: "non_retryable" });
    expect(count(`notify:${id}`)).toBe(1);
    subjects.set(id, "Your overdue invoice");
    failAfterSend.delete(id);
    const replayed = await replayTask(t.pool, operator("rita@example.com"), {
      taskId,
      version: dead.version,
      fromStep: 1,
    });
    expect(replayed.ok).toBe(true);
    return { taskId, task: await kit.settle(taskId) };
  }

  function expectBothPayloads(
    entries: { kind: string; data: JsonValue }[],
    id: string,
    policy: string,
  ) {
    const mismatch = entries.filter((e) => e.kind === "effect.payload_mismatch");
    expect(mismatch).toHaveLength(1);
    expect(mismatch[0]?.data).toMatchObject({
      policy,
      first: { args: { id, subject: "Your invoice", body: "[redacted]" } },
      second: { args: { id, subject: "Your overdue invoice", body: "[redacted]" } },
    });
    const data = mismatch[0]?.data as {
      first: { fingerprint: string; args: Record<string, JsonValue> };
      second: { fingerprint: string; args: Record<string, JsonValue> };
    };
    expect(data.first.fingerprint).toBe(payloadFingerprint(data.first.args));
    expect(data.second.fingerprint).toBe(payloadFingerprint(data.second.args));
    expect(data.first.fingerprint).not.toBe(data.second.fingerprint);
    expect(JSON.stringify(mismatch)).not.toContain("secret body");
  }

  it("return-first returns the first result, records both payloads, and does not act", async () => {
    const { taskId, task } = await replayWithNewSubject("p1", false);
    expect(task).toMatchObject({
      status: "succeeded",
      result: { messageId: "m_p1", subject: "Your invoice" },
    });
    expect(count("notify:p1")).toBe(1);
    const all = await kit.entries(taskId);
    expectBothPayloads(all, "p1", "return-first");
    const after = all.slice(all.findIndex((e) => e.kind === "replay.requested"));
    expect(after.map((e) => e.kind)).toEqual([
      "replay.requested",
      "step.completed",
      "effect.payload_mismatch",
      "effect.deduplicated",
      "task.succeeded",
    ]);
    // The replay's attempt started on its first entry.
    expect((await kit.starts(taskId)).at(-1)?.on).toBe("step.completed");
    const [effect] = await kit.effects(taskId);
    expect(effect).toMatchObject({
      status: "succeeded",
      attempts: 1,
      args: { id: "p1", subject: "Your invoice", body: "[redacted]" },
    });
  });

  it("by default the task is dead-lettered as payload_mismatch, and nothing acts", async () => {
    const { taskId, task } = await replayWithNewSubject("p2", true);
    expect(task).toMatchObject({ status: "dead", dead_reason: "payload_mismatch" });
    expect(count("notify:p2")).toBe(1);
    const all = await kit.entries(taskId);
    expectBothPayloads(all, "p2", "dead-letter");
    expect(all.map((e) => e.kind)).not.toContain("effect.deduplicated");
  });
});
