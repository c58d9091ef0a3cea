// ctx.model is a durable step: the model's decision is journaled and not re-rolled on retry,
// its call is in the ledger, and its cost counts against the task's budget.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { withTransaction } from "../../db/client";
import { setUpTestDatabase } from "../../db/testing/database";
import { defineAgent, defineTool } from "../../lib/sdk/define";
import { insertTask } from "../../lib/server/commands/enqueue-task";
import { createScriptedModel } from "../models/scripted";
import { workerForFile } from "./test-worker";

const t = await setUpTestDatabase("model");
let generated = 0;
const sent: string[] = [];
const crashOnce = new Set<string>();

const sendEmail = defineTool({
  name: "send_email",
  description: "Email a customer about an invoice",
  input: z.object({ to: z.string(), invoiceId: z.string(), body: z.string() }),
  intent: (a) => ({ to: a.to, invoiceId: a.invoiceId }),
  execute: async (a) => {
    sent.push(a.invoiceId);
    return { ok: true };
  },
});

const model = createScriptedModel((req) => {
  generated += 1;
  const invoiceId = /invoice (\S+)/.exec(req.prompt ?? "")?.[1] ?? "?";
  return {
    text: `Variant ${generated}: remind about ${invoiceId}`,
    toolCalls: [
      {
        toolName: "send_email",
        args: { to: "ada@example.com", invoiceId, body: `Reminder #${generated}` },
      },
    ],
  };
});

const reminder = defineAgent({
  name: "reminder",
  input: z.object({ invoiceId: z.string() }),
  tools: { send_email: sendEmail },
  run: async (ctx, input) => {
    const decision = await ctx.model({
      system: "Decide whether to email.",
      prompt: `Unpaid invoice ${input.invoiceId}`,
      tools: ["send_email"],
    });
    if (crashOnce.delete(input.invoiceId)) throw new Error("crashed after the model answered");
    for (const call of decision.toolCalls) {
      await ctx.tool("send_email", call.args as { to: string; invoiceId: string; body: string });
    }
    return { text: decision.text };
  },
});

workerForFile(t.pool, {
  policy: { maxAttempts: 3, backoffMs: 5, attemptTimeoutMs: 5_000 },
  agents: [reminder],
  model,
  concurrency: 4,
});

async function run(invoiceId: string, policy?: Record<string, unknown>) {
  const { taskId } = await withTransaction(t.pool, (c) =>
    insertTask(c, { agent: "reminder", input: { invoiceId }, policy, actor: "test" }),
  );
  for (let i = 0; i < 400; i++) {
    const { rows } = await t.pool.query(
      "select status, dead_reason, attempts, cost, result from tasks where id = $1",
      [taskId],
    );
    if (["succeeded", "dead"].includes(rows[0].status)) return { id: taskId, ...rows[0] };
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("task did not settle");
}

describe("ctx.model", () => {
  it("records the call (prompt, tool calls, usage, cost) and acts on the decision", async () => {
    const task = await run("inv_1");
    expect(task).toMatchObject({ status: "succeeded", attempts: 1 });
    expect(task.cost).toBeGreaterThan(0);
    const { rows } = await t.pool.query(
      "select data, at from ledger_entries where task_id = $1 and kind = 'model.called'",
      [task.id],
    );
    expect(rows[0].data).toMatchObject({
      prompt: "Unpaid invoice inv_1",
      toolsOffered: ["send_email"],
      toolCalls: [{ toolName: "send_email", args: { invoiceId: "inv_1" } }],
      model: "scripted",
    });
    expect(rows[0].data.usage.inputTokens).toBeGreaterThan(0);
    // When the call began, for the task page's timeline: before the entry that recorded it.
    const startedAt = Date.parse(rows[0].data.startedAt);
    expect(startedAt).toBeLessThanOrEqual(rows[0].at.getTime());
    expect(startedAt).toBeGreaterThan(rows[0].at.getTime() - 10_000);
  });

  it("a retry reuses the journaled decision instead of asking the model again", async () => {
    crashOnce.add("inv_2");
    const before = generated;
    const task = await run("inv_2");
    expect(task).toMatchObject({ status: "succeeded", attempts: 2 });
    expect(generated - before).toBe(1);
    expect(sent.filter((s) => s === "inv_2")).toHaveLength(1);
  });

  it("dead-letters with reason budget once the model cost passes the task's budget", async () => {
    const task = await run("inv_3", { budget: 0.000_001 });
    expect(task).toMatchObject({ status: "dead", dead_reason: "budget" });
    expect(sent).not.toContain("inv_3");
  });
});
