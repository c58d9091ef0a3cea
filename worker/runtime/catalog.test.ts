// A worker publishes its agents at start, and a gated money tool parks with money=true, so the
// web app can apply the two-person rule without loading agent code.

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../db/testing/database";
import { operator } from "../../lib/domain/access";
import { defineAgent, defineTool } from "../../lib/sdk/define";
import { approveTask } from "../../lib/server/commands/approve-task";
import { runtimeTestKit } from "./test-support";
import { workerForFile } from "./test-worker";

const t = await setUpTestDatabase("catalog");
const kit = runtimeTestKit(t.pool);
const paid: number[] = [];

const pay = defineTool({
  name: "pay",
  description: "Pays out",
  input: z.object({
    orderId: z.string(),
    cents: z.number().int(),
    currency: z.string(),
    card: z.string(),
  }),
  intent: (a) => ({ orderId: a.orderId }),
  requiresApproval: (a) => a.cents > 100,
  sensitive: ["card"],
  providerIdempotent: true,
  money: { amount: "cents", currency: "currency" },
  execute: async (a) => {
    paid.push(a.cents);
    return { ok: true };
  },
});
const note = defineTool({
  name: "note",
  input: z.object({ text: z.string() }),
  intent: (a) => a,
  execute: async () => ({ ok: true }),
});
const payer = defineAgent({
  name: "payer",
  input: z.object({ orderId: z.string().min(1), cents: z.number().int().positive() }),
  tools: { pay, note },
  policy: { maxAttempts: 2 },
  run: async (ctx, input) => ctx.tool("pay", { ...input, currency: "eur", card: "4242" }),
});

const worker = workerForFile(t.pool, { agents: [payer], concurrency: 2 });

describe("agent catalog", () => {
  it("holds each agent's input JSON Schema and its tools' flags", async () => {
    const { rows } = await t.pool.query(
      "select name, input_schema, tools, policy, published_by from agent_catalog",
    );
    expect(rows).toHaveLength(1);
    const row = rows[0];
    expect(row.name).toBe("payer");
    expect(row.published_by).toBe(worker.current.id);
    expect(row.input_schema).toMatchObject({
      type: "object",
      properties: { orderId: { type: "string", minLength: 1 }, cents: { type: "integer" } },
      required: ["orderId", "cents"],
    });
    expect(row.tools).toEqual([
      {
        name: "pay",
        description: "Pays out",
        money: true,
        moneyArgs: { amount: "cents", currency: "currency" },
        providerIdempotent: true,
        reconcile: false,
        requiresApproval: true,
        sensitive: ["card"],
        source: null,
      },
      {
        name: "note",
        description: null,
        money: false,
        moneyArgs: null,
        providerIdempotent: false,
        reconcile: false,
        requiresApproval: false,
        sensitive: [],
        source: null,
      },
    ]);
    expect(row.policy).toEqual({ maxAttempts: 2 });
  });

  it("a gated money tool parks with money=true and takes two different reviewers", async () => {
    const id = await kit.enqueue("payer", { orderId: "o-1", cents: 500 });
    const parked = await kit.waitFor(id, (r) => r.status === "awaiting_approval");
    const approvals = await t.pool.query("select money, status from approvals where task_id = $1", [
      id,
    ]);
    expect(approvals.rows).toEqual([{ money: true, status: "pending" }]);

    const first = await approveTask(t.pool, operator("user:a@example.com"), {
      taskId: id,
      version: parked.version,
    });
    expect(first.ok).toBe(true);
    expect((await kit.task(id)).status).toBe("awaiting_approval");
    expect(paid).toEqual([]);

    const again = await kit.task(id);
    const second = await approveTask(t.pool, operator("user:b@example.com"), {
      taskId: id,
      version: again.version,
    });
    expect(second.ok).toBe(true);
    await kit.waitFor(id, (r) => r.status === "succeeded");
    expect(paid).toEqual([500]);
  });
});
