// getEffect on effects the runtime really performed: a succeeded one with a sensitive field,
// one whose outcome is unknown, and one that waited for a reviewer's approval.

import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../../db/testing/database";
import { runtimeTestKit, setGlobalPolicy } from "../../../worker/runtime/test-support";
import { testTokenViewer, testViewer } from "../../auth/testing";
import { operator } from "../../domain/access";
import { deriveEffectKey } from "../../domain/hash";
import { REDACTED } from "../../domain/redact";
import { defineAgent, defineTool } from "../../sdk/define";
import { approveTask } from "../commands/approve-task";
import { effectDetailSchema, getEffect } from "./get-effect";
import { HIDDEN_PAYLOAD } from "./payloads";

const t = await setUpTestDatabase("get_effect");
const kit = runtimeTestKit(t.pool);
const ops = testViewer("ops");

const store = defineTool({
  name: "store",
  input: z.object({ id: z.string(), secret: z.string() }),
  intent: (a) => ({ id: a.id }),
  sensitive: ["secret"],
  execute: async (a) => ({ stored: a.id, secret: a.secret }),
});
const flaky = defineTool({
  name: "flaky",
  input: z.object({ id: z.string() }),
  intent: (a) => ({ id: a.id }),
  execute: async () => {
    // Not an EffectNotPerformedError: nobody knows whether it acted.
    throw new Error("connection reset after sending");
  },
});
const gated = defineTool({
  name: "gated",
  input: z.object({ id: z.string() }),
  intent: (a) => ({ id: a.id }),
  requiresApproval: () => true,
  execute: async (a) => ({ done: a.id }),
});
const agent = defineAgent({
  name: "effects-agent",
  input: z.object({ id: z.string(), use: z.enum(["store", "flaky", "gated"]) }),
  tools: { store, flaky, gated },
  run: async (ctx, input) => {
    await ctx.step("prepare", async () => ({ id: input.id }));
    if (input.use === "store") return ctx.tool("store", { id: input.id, secret: "hunter2" });
    if (input.use === "flaky") return ctx.tool("flaky", { id: input.id });
    return ctx.tool("gated", { id: input.id });
  },
});

async function runTask(id: string, use: "store" | "flaky" | "gated") {
  const taskId = await kit.enqueue(agent.name, { id, use });
  const ran = await kit.runOneAttempt("w1", [agent]);
  expect(ran?.taskId).toBe(taskId);
  return taskId;
}

let storedTask = "";
let storedKey = "";

beforeAll(async () => {
  await setGlobalPolicy(t.pool, { maxAttempts: 3, backoffMs: 60_000, attemptTimeoutMs: 5_000 });
  storedTask = await runTask("s1", "store");
  storedKey = deriveEffectKey(storedTask, "store", { id: "s1" });
});

describe("getEffect", () => {
  it("returns a performed effect with its task, step, redacted result and ledger entries", async () => {
    const detail = await getEffect(t.db, ops, storedKey);
    expect(detail).not.toBeNull();
    expect(effectDetailSchema.parse(detail)).toEqual(detail);
    expect(detail?.effect).toMatchObject({
      key: storedKey,
      taskId: storedTask,
      stepSeq: 2,
      tool: "store",
      status: "succeeded",
      state: "succeeded",
      intent: { id: "s1" },
      args: { id: "s1", secret: REDACTED },
      // The ledger's copy, not the raw result the effects table keeps for dedupe.
      result: { stored: "s1", secret: REDACTED },
      error: null,
      attempts: 1,
    });
    expect(detail?.effect.completedAt).not.toBeNull();
    expect(detail?.task).toMatchObject({
      id: storedTask,
      agent: "effects-agent",
      status: "succeeded",
    });
    expect(detail?.step).toMatchObject({
      seq: 2,
      kind: "tool",
      name: "store",
      status: "completed",
      attempt: 1,
    });
    expect(detail?.ledger.map((e) => e.kind)).toEqual(["effect.succeeded"]);
    expect(detail?.ledger[0]?.data).toMatchObject({ effectStarted: { at: expect.any(String) } });
    expect(detail?.ledger.every((e) => e.key === storedKey && e.actor === "worker:w1")).toBe(true);
    expect(detail?.approvals).toEqual([]);
    expect(detail).toMatchObject({
      ledgerHidden: false,
      payloadsHidden: false,
      ledgerTruncated: false,
    });
    expect(JSON.stringify(detail)).not.toContain("hunter2");
  });

  it("finds the key in any case and returns null for an unknown or malformed key", async () => {
    expect((await getEffect(t.db, ops, storedKey.toUpperCase()))?.effect.key).toBe(storedKey);
    expect(await getEffect(t.db, ops, "f".repeat(64))).toBeNull();
    expect(await getEffect(t.db, ops, "not-a-key")).toBeNull();
  });

  it("shows an effect whose outcome is unknown, with the error", async () => {
    const taskId = await runTask("f1", "flaky");
    // The test worker retries with zero jitter, i.e. at once: keep later runs away from it.
    await t.pool.query("update tasks set run_at = now() + interval '1 hour' where id = $1", [
      taskId,
    ]);
    const detail = await getEffect(t.db, ops, deriveEffectKey(taskId, "flaky", { id: "f1" }));
    expect(detail?.effect).toMatchObject({
      status: "started",
      state: "outcome_unknown",
      result: null,
      error: { message: "connection reset after sending" },
    });
    expect(detail?.task.status).toBe("retry_wait");
    // The tool step never completed, so the journal has no row for it.
    expect(detail?.step).toBeNull();
    expect(detail?.ledger.map((e) => e.kind)).toEqual(["effect.failed"]);
    // The failure carries the claim it ended.
    expect(detail?.ledger[0]?.data).toMatchObject({
      performed: "unknown",
      effectStarted: { fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
  });

  it("lists the approval a reviewer gave before the effect ran", async () => {
    const taskId = await runTask("g1", "gated");
    const key = deriveEffectKey(taskId, "gated", { id: "g1" });
    // Parked: the approval is asked for, but no effect exists yet.
    expect(await getEffect(t.db, ops, key)).toBeNull();
    const parked = await kit.task(taskId);
    expect(parked.status).toBe("awaiting_approval");
    const approved = await approveTask(t.pool, operator("user:rita@example.com"), {
      taskId,
      version: parked.version,
      note: "fine",
    });
    expect(approved.ok).toBe(true);
    await kit.runOneAttempt("w1", [agent]);
    const detail = await getEffect(t.db, ops, key);
    expect(detail?.effect.status).toBe("succeeded");
    expect(detail?.approvals).toHaveLength(1);
    expect(detail?.approvals[0]).toMatchObject({
      status: "approved",
      decidedBy: "user:rita@example.com",
      reason: "fine",
      money: false,
      firstApprovedBy: null,
    });
    expect(detail?.approvals[0]?.usedAt).not.toBeNull();
    expect(detail?.ledger.map((e) => e.kind)).toEqual(["approval.requested", "effect.succeeded"]);
  });
});

describe("getEffect authorization", () => {
  it("refuses without a viewer (401) and without tasks:read (403)", async () => {
    await expect(getEffect(t.db, null, storedKey)).rejects.toMatchObject({ status: 401 });
    await expect(
      getEffect(t.db, testTokenViewer(["ledger:read", "payloads:read"]), storedKey),
    ).rejects.toMatchObject({ name: "AuthError", status: 403 });
  });

  it("hides payloads without payloads:read and the ledger without ledger:read", async () => {
    const noPayloads = await getEffect(
      t.db,
      testTokenViewer(["tasks:read", "ledger:read"]),
      storedKey,
    );
    expect(noPayloads?.payloadsHidden).toBe(true);
    expect(noPayloads?.effect).toMatchObject({
      intent: HIDDEN_PAYLOAD,
      args: HIDDEN_PAYLOAD,
      result: HIDDEN_PAYLOAD,
      tool: "store",
      fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(noPayloads?.ledger.map((e) => e.data)).toEqual([HIDDEN_PAYLOAD]);
    expect(JSON.stringify(noPayloads)).not.toContain('"s1"');

    const noLedger = await getEffect(
      t.db,
      testTokenViewer(["tasks:read", "payloads:read"]),
      storedKey,
    );
    expect(noLedger).toMatchObject({ ledgerHidden: true, ledger: [], payloadsHidden: false });
    expect(noLedger?.effect.args).toEqual({ id: "s1", secret: REDACTED });
  });

  it("publishes a schema that converts to JSON Schema for OpenAPI", () => {
    expect(z.toJSONSchema(effectDetailSchema)).toMatchObject({ type: "object" });
  });
});
