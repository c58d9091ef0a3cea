// The package's startWorker against a real database: it parses its options, runs the team's
// agents (with the built-in alert-delivery agent beside them), and stop() closes its own pool.

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../db/testing/database";
import { defineAgent, defineTool } from "../lib/sdk/define";
import { enqueue } from "../lib/sdk/enqueue";
import { startWorker } from "./start-worker";

const t = await setUpTestDatabase("start_worker");

let sent = 0;
const send = defineTool({
  name: "send",
  input: z.object({ to: z.string() }),
  intent: (a) => ({ to: a.to }),
  execute: async (a, { idempotencyKey }) => {
    sent++;
    return { to: a.to, key: idempotencyKey };
  },
});
const greeter = defineAgent({
  name: "greeter",
  input: z.object({ to: z.string() }),
  tools: { send },
  run: (ctx, input) => ctx.tool("send", { to: input.to }),
});

async function settled(taskId: string) {
  for (let i = 0; i < 200; i++) {
    const { rows } = await t.pool.query("select status, result from tasks where id = $1", [taskId]);
    if (rows[0]?.status === "succeeded") return rows[0];
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`task ${taskId} did not succeed`);
}

describe("startWorker", () => {
  it("refuses bad options, naming each", async () => {
    await expect(startWorker({ agents: [greeter] })).rejects.toThrow(
      /give exactly one of databaseUrl or pool/,
    );
    await expect(
      startWorker({ databaseUrl: "mysql://x", agents: [greeter], concurrency: 0 }),
    ).rejects.toThrow(
      /postgres:\/\/ or postgresql:\/\/ URL\n {2}→ at databaseUrl[\s\S]*→ at concurrency/,
    );
    await expect(
      startWorker({ databaseUrl: t.appUrl, agents: [{ name: "x" } as never] }),
    ).rejects.toThrow(/must be an agent made with defineAgent/);
    await expect(startWorker({ databaseUrl: t.appUrl, agents: [] })).rejects.toThrow(
      /at least one agent/,
    );
  });

  it("runs the team's agents from a URL, publishes them with the built-in one, and closes its pool on stop", async () => {
    const worker = await startWorker({
      databaseUrl: t.appUrl,
      agents: [greeter],
      concurrency: 2,
      leaseMs: 2_000,
      verifyLedger: false,
    });
    try {
      const { taskId } = await enqueue(t.pool, { agent: greeter, input: { to: "ada" } });
      const row = await settled(taskId);
      expect(row.result).toMatchObject({ to: "ada" });
      expect(sent).toBe(1);
      const { rows } = await t.pool.query("select name from agent_catalog order by name");
      expect(rows.map((r) => r.name)).toEqual(["alert-delivery", "greeter"]);
    } finally {
      await worker.stop(1_000);
    }
    // A closed connection's backend leaves pg_stat_activity a moment after the client is gone.
    await expect
      .poll(async () => {
        const { rows } = await t.pool.query(
          "select count(*)::int as n from pg_stat_activity where application_name = 'agent-ledger-worker' and datname = current_database()",
        );
        return rows[0].n;
      })
      .toBe(0);
  });

  it("leaves a pool it was given open, and refuses the built-in agent's name", async () => {
    const clash = defineAgent({ ...greeter, name: "alert-delivery" });
    await expect(startWorker({ pool: t.pool, agents: [clash] })).rejects.toThrow(
      /"alert-delivery" is the built-in one/,
    );
    const worker = await startWorker({ pool: t.pool, agents: [greeter], verifyLedger: false });
    await worker.stop(1_000);
    const { rows } = await t.pool.query("select 1 as ok");
    expect(rows).toEqual([{ ok: 1 }]);
  });
});

describe("startWorker's model", () => {
  it("takes an AI SDK language model as it comes, and refuses what is not a model", async () => {
    const { scriptedLanguageModel } = await import("../lib/sdk/ai/scripted-model");
    const asker = defineAgent({
      name: "asker",
      input: z.object({ q: z.string() }),
      tools: {},
      run: async (ctx, input) => (await ctx.generateText({ prompt: input.q, tools: [] })).text,
    });
    await expect(
      startWorker({ pool: t.pool, agents: [asker], model: { name: "x" } as never }),
    ).rejects.toThrow(/must be an AI SDK language model or a model client/);
    const worker = await startWorker({
      pool: t.pool,
      agents: [asker],
      model: scriptedLanguageModel([{ text: "forty-two" }]),
      verifyLedger: false,
    });
    try {
      const { taskId } = await enqueue(t.pool, { agent: asker, input: { q: "why?" } });
      const row = await settled(taskId);
      expect(row.result).toBe("forty-two");
    } finally {
      await worker.stop(1_000);
    }
  });
});
