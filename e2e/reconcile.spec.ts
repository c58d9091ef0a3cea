// "Check with the provider" as a reviewer uses it: on a dead task whose refund's outcome is
// unknown, the resolve form asks a real worker (run here, against the app's database) to run the
// tool's reconcile; the provider's answer appears on the open page by itself and is pre-selected;
// the reviewer then records it. A tool without reconcile shows why there is no button.
import type pg from "pg";
import { z } from "zod";
import { createPool } from "../db/client";
import { defineAgent, defineTool } from "../lib/sdk/define";
import { stageUnknownOutcome } from "../worker/runtime/stage-unknown-outcome";
import { startWorker } from "../worker/runtime/worker";
import type { RunningWorker } from "../worker/runtime/worker-config";
import { asRole, expect, randomWord, test } from "./fixtures";
import { readE2eDatabase } from "./settings";

test.use(asRole("reviewer"));

const REVIEWER = "user:reviewer@example.com";

/** Every key the provider was asked about, in order. */
const asked: string[] = [];

function providerAgent(name: string) {
  const refund = defineTool({
    name: "issue_refund",
    input: z.object({ orderId: z.string(), amountCents: z.number().int() }),
    intent: (a) => ({ orderId: a.orderId }),
    execute: async (a) => ({ refundId: `re_${a.orderId}` }),
    // The provider lists the refunds it made; this one it made before the worker crashed.
    reconcile: async (key, a) => {
      asked.push(key);
      return { happened: true, result: { refundId: `re_${a.orderId}_found`, status: "succeeded" } };
    },
  });
  const note = defineTool({
    name: "send_note",
    input: z.object({ to: z.string() }),
    intent: (a) => ({ to: a.to }),
    execute: async () => ({ sent: true }),
  });
  return defineAgent({
    name,
    input: z.object({ orderId: z.string().optional() }),
    tools: { issue_refund: refund, send_note: note },
    run: async () => null,
  });
}

async function entries(db: pg.Pool, id: string, kind: string) {
  const { rows } = await db.query<{ actor: string; data: Record<string, unknown> }>(
    "select actor, data from ledger_entries where task_id = $1 and kind = $2 order by seq",
    [id, kind],
  );
  return rows;
}

let pool: pg.Pool;
let worker: RunningWorker;
const agent = providerAgent(`e2e-provider-${randomWord(6)}`);

test.beforeAll(async () => {
  pool = createPool(readE2eDatabase().appUrl, { max: 4, applicationName: "e2e-reconcile" });
  // Publishes the agent (its tools' reconcile flags) and answers checks while the spec runs.
  worker = await startWorker({ pool, agents: [agent], concurrency: 1, pollMs: 200, log: () => {} });
});

test.afterAll(async () => {
  await worker.stop(1_000);
  await pool.end();
});

test("a reviewer checks an unknown refund with the provider, sees the answer, then resolves", async ({
  page,
  db,
}) => {
  const orderId = `ord_${randomWord(6)}`;
  const staged = await stageUnknownOutcome(db, {
    agent: agent.name,
    tool: "issue_refund",
    args: { orderId, amountCents: 1_200 },
    intent: { orderId },
  });

  await page.goto(`/tasks/${staged.taskId}`);
  await page.getByRole("button", { name: "Resolve the outcome of issue_refund…" }).click();
  const dialog = page.getByRole("dialog", { name: "Did issue_refund happen?" });
  await expect(dialog.getByTestId("provider-refs")).toContainText(staged.key);
  const happened = dialog.getByLabel(/It happened/);
  await expect(happened).not.toBeChecked();

  await dialog.getByRole("button", { name: "Check with the provider" }).click();
  // The worker answers; the open dialog follows the live page without a reload.
  const answer = dialog.getByTestId("provider-check-answer");
  await expect(answer).toContainText("The provider says it happened", { timeout: 15_000 });
  await expect(answer).toContainText(`re_${orderId}_found`);
  await expect(answer).toContainText(`asked by ${REVIEWER}`);
  expect(asked.filter((k) => k === staged.key)).toHaveLength(1);
  // Pre-selected with the provider's result, not recorded: the effect is still unknown.
  await expect(happened).toBeChecked();
  await expect(dialog.getByLabel(/^Result/)).toHaveValue(new RegExp(`re_${orderId}_found`));
  const { rows } = await db.query("select status from effects where key = $1", [staged.key]);
  expect(rows[0]?.status).toBe("started");
  await page.screenshot({ path: "docs/screenshots/reconcile.png", fullPage: false });

  expect(await entries(db, staged.taskId, "effect.reconcile_requested")).toEqual([
    expect.objectContaining({ actor: REVIEWER }),
  ]);
  expect(await entries(db, staged.taskId, "effect.reconciled")).toEqual([
    expect.objectContaining({
      actor: `worker:${worker.id}`,
      data: expect.objectContaining({
        requestedBy: REVIEWER,
        happened: true,
        result: { refundId: `re_${orderId}_found`, status: "succeeded" },
      }),
    }),
  ]);

  await dialog.getByRole("button", { name: "Record and resume" }).click();
  await expect(page.getByTestId("review-status")).toContainText("happened");
  expect(await entries(db, staged.taskId, "outcome.resolved")).toEqual([
    expect.objectContaining({
      actor: REVIEWER,
      data: expect.objectContaining({
        happened: true,
        result: { refundId: `re_${orderId}_found`, status: "succeeded" },
      }),
    }),
  ]);
});

test("a tool without reconcile has no check button, and the form says why", async ({
  page,
  db,
}) => {
  const to = `${randomWord(6)}@example.com`;
  const staged = await stageUnknownOutcome(db, {
    agent: agent.name,
    tool: "send_note",
    args: { to },
    intent: { to },
  });
  await page.goto(`/tasks/${staged.taskId}`);
  await page.getByRole("button", { name: "Resolve the outcome of send_note…" }).click();
  const dialog = page.getByRole("dialog", { name: "Did send_note happen?" });
  await expect(dialog.getByTestId("provider-check-absent")).toContainText(
    "send_note has no way to ask its provider",
  );
  await expect(dialog.getByRole("button", { name: /Check with the provider/ })).toHaveCount(0);
});
