// agent-ledger check-outcome as scripts see it: a real process against a real database, judged
// by exit code, output and the rows it leaves; the worker that answers runs in this process.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../db/testing/database";
import { defineAgent, defineTool } from "../../lib/sdk/define";
import { publishCatalog } from "../../worker/runtime/catalog";
import { stageUnknownOutcome } from "../../worker/runtime/stage-unknown-outcome";
import { startWorker } from "../../worker/runtime/worker";
import { ACTOR, BIN, SLOW } from "./testing";

const t = await setUpTestDatabase("cli-check-outcome");

/** Spawned without blocking this process, so the worker here can answer meanwhile. */
async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await promisify(execFile)(process.execPath, [BIN, ...args], {
      encoding: "utf8",
      env: { ...process.env, DATABASE_URL: t.appUrl, DATABASE_OWNER_URL: t.ownerUrl },
      timeout: 120_000,
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

const refund = defineTool({
  name: "refund",
  input: z.object({ orderId: z.string() }),
  intent: (a) => ({ orderId: a.orderId }),
  execute: async (a) => ({ refundId: `re_${a.orderId}` }),
  reconcile: async (_key, a) => ({ happened: true, result: { refundId: `re_${a.orderId}` } }),
});
const note = defineTool({
  name: "note",
  input: z.object({ to: z.string() }),
  intent: (a) => ({ to: a.to }),
  execute: async () => ({ sent: true }),
});
const agent = defineAgent({
  name: "cli-payer",
  input: z.object({}),
  tools: { refund, note },
  run: async () => null,
});
await publishCatalog(t.pool, [agent], "test");

const stage = (orderId: string) =>
  stageUnknownOutcome(t.pool, {
    agent: agent.name,
    tool: "refund",
    args: { orderId },
    intent: { orderId },
  });

describe("check-outcome", SLOW, () => {
  it("asks once per pending check; without a worker --wait gives up with 1", async () => {
    const staged = await stage("ord_1");
    const first = await cli(["check-outcome", staged.taskId, "--key", staged.key, "--json"]);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ id: staged.taskId, created: true });
    const again = await cli(["check-outcome", staged.taskId, "--key", staged.key, "--wait", "1"]);
    expect(again.code).toBe(1);
    expect(again.stdout).toContain("still waiting for a worker");
    const { rows } = await t.pool.query(
      "select actor from ledger_entries where task_id = $1 and kind = 'effect.reconcile_requested'",
      [staged.taskId],
    );
    expect(rows).toEqual([{ actor: ACTOR }]);
    expect(
      (await t.pool.query("select 1 from reconcile_checks where task_id = $1", [staged.taskId]))
        .rowCount,
    ).toBe(1);
  });

  it("--wait prints the provider's answer once a worker has recorded it", async () => {
    const staged = await stage("ord_2");
    const worker = await startWorker({
      pool: t.pool,
      agents: [agent],
      concurrency: 1,
      pollMs: 100,
      log: () => {},
    });
    try {
      const r = await cli(["check-outcome", staged.taskId, "--key", staged.key, "--wait", "60"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('the provider says it happened: {"refundId":"re_ord_2"}');
    } finally {
      await worker.stop(1_000);
    }
  });

  it("a tool without reconcile is refused (1); a bad key exits 2", async () => {
    const staged = await stageUnknownOutcome(t.pool, {
      agent: agent.name,
      tool: "note",
      args: { to: "ada@example.com" },
      intent: { to: "ada@example.com" },
    });
    const refused = await cli(["check-outcome", staged.taskId, "--key", staged.key]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("note has no reconcile");
    const bad = await cli(["check-outcome", staged.taskId, "--key", "abc"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("must be an effect key");
  });
});
