// The task page as a reviewer uses it: fix a bad input ("currency: US dollars") and replay it,
// watching the page follow the worker by itself; resolve an unknown outcome with the full key
// and Message-ID to copy; reject with a reason and read who and why.

import type pg from "pg";
import { z } from "zod";
import { THEME_COOKIE } from "../components/theme/theme";
import { defineAgent, defineTool } from "../lib/sdk/define";
import { catalogEntry } from "../worker/runtime/catalog";
import { blockingViolations } from "./axe";
import { asRole, enqueue, expect, insertDeadTask, randomWord, runTasks, test } from "./fixtures";
import { stageUnknownOutcome } from "./staging";

test.use(asRole("reviewer"));

const REVIEWER = "user:reviewer@example.com";

async function entries(db: pg.Pool, id: string, kind: string) {
  const { rows } = await db.query<{ actor: string; data: Record<string, unknown> }>(
    "select actor, data from ledger_entries where task_id = $1 and kind = $2 order by seq",
    [id, kind],
  );
  return rows;
}

/** A refund agent whose schema wants a three-letter currency code. */
function currencyAgent(name: string) {
  const refund = defineTool({
    name: "issue_refund",
    input: z.object({ orderId: z.string(), amountCents: z.number().int(), currency: z.string() }),
    intent: (a) => ({ orderId: a.orderId }),
    execute: async (a) => ({ refundId: `re_${a.orderId}`, currency: a.currency }),
  });
  return defineAgent({
    name,
    input: z.object({
      orderId: z.string(),
      amountCents: z.number().int(),
      currency: z.string().regex(/^[a-z]{3}$/),
    }),
    tools: { issue_refund: refund },
    run: async (ctx, input) => {
      const done = await ctx.tool("issue_refund", input);
      return { refundId: done.refundId };
    },
  });
}

test("a reviewer fixes a bad input and replays it; the page follows the worker by itself", async ({
  page,
  db,
}) => {
  const agent = currencyAgent(`e2e-fixer-${randomWord(6)}`);
  const orderId = `ord_${randomWord(6)}`;
  const bad = { orderId, amountCents: 900, currency: "US dollars" };
  const id = await enqueue(db, agent.name, bad);
  // The worker publishes the agent's schema and dead-letters the input it refuses.
  await runTasks([agent], [id], ["dead"]);

  await page.goto(`/tasks/${id}`);
  await expect(page.getByTestId("live-status")).toContainText("Live");
  // The attempt says which version of the agent's code ran it (derived: the agent declares none).
  await expect(
    page.getByRole("region", { name: "Attempts" }).locator("[data-attempt-version]"),
  ).toHaveText(catalogEntry(agent).version);
  await page.getByRole("button", { name: "Fix the input and replay…" }).click();
  const dialog = page.getByRole("dialog", { name: "Fix the input and replay" });
  const editor = dialog.getByLabel("Corrected input (JSON)");
  await expect(editor).toHaveValue(/US dollars/);

  // The agent's schema says what is still wrong before anything is recorded.
  await editor.fill(JSON.stringify({ ...bad, currency: "dollars" }));
  await expect(dialog.getByTestId("correct-error")).toContainText("currency");
  await expect(dialog.getByTestId("correct-confirm")).toBeDisabled();

  await editor.fill(JSON.stringify({ ...bad, currency: "usd" }, null, 2));
  const diff = dialog.getByTestId("correct-diff");
  await expect(diff).toContainText("currency");
  await expect(diff).toContainText('"US dollars"');
  await expect(diff).toContainText('"usd"');
  await dialog.getByLabel(/^Note/).fill("the shop sent a display name, not a code");
  await page.screenshot({ path: "docs/screenshots/task.png", fullPage: false });
  await dialog.getByRole("button", { name: "Correct and replay from step 1" }).click();
  await expect(page.getByTestId("review-status")).toContainText("Input corrected");

  expect(await entries(db, id, "task.input_corrected")).toEqual([
    expect.objectContaining({
      actor: REVIEWER,
      data: expect.objectContaining({
        before: bad,
        after: { ...bad, currency: "usd" },
        note: "the shop sent a display name, not a code",
      }),
    }),
  ]);
  // The original stays in the record.
  expect((await entries(db, id, "task.enqueued"))[0]?.data).toMatchObject({ input: bad });

  // Without a reload: the worker runs the corrected task and the page says so, counting the
  // attempt before the correction too.
  const callout = page.getByTestId("task-callout");
  await expect(callout).toContainText("Queued");
  await runTasks([agent], [id], ["succeeded"]);
  await expect(callout).toContainText("Succeeded", { timeout: 15_000 });
  await expect(callout).toContainText("Finished after 2 attempts");
  await expect(page.getByRole("region", { name: "Effects" })).toContainText("issue_refund");

  // The Input section now reads as enqueued → the correction → now, by one reviewer.
  const input = page.getByRole("region", { name: "Input", exact: true });
  await expect(input.getByTestId("input-enqueued")).toContainText("US dollars");
  await expect(input.getByTestId("correction-people")).toHaveText(
    `By ${REVIEWER}; replayed from step 1.`,
  );
  const row = input.getByTestId("correction-diff").locator("tbody tr");
  await expect(row).toHaveCount(1);
  await expect(row.locator("td")).toHaveText(['"US dollars"', '"usd"']);
  await expect(input.getByTestId("input-now")).toContainText('"currency": "usd"');
  // Readable in both palettes.
  for (const theme of ["light", "dark"] as const) {
    await page.context().addCookies([{ name: THEME_COOKIE, value: theme, url: page.url() }]);
    await page.reload();
    await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
    expect(
      await blockingViolations(page, "#input"),
      `the corrected input in the ${theme} theme`,
    ).toEqual([]);
  }
});

test("an unknown outcome shows the full key and Message-ID to copy, then is resolved", async ({
  page,
  db,
}) => {
  const { taskId: id, key } = await stageUnknownOutcome(db, "ada@example.com");

  await page.goto(`/tasks/${id}`);
  await page.getByRole("button", { name: "Resolve the outcome of send_email…" }).click();
  const dialog = page.getByRole("dialog", { name: "Did send_email happen?" });
  const refs = dialog.getByTestId("provider-refs");
  await expect(refs).toContainText(key);
  await expect(refs).toContainText(new RegExp(`<${key}@[^>]+>`));
  await expect(refs).toContainText("ada@example.com");
  await expect(dialog.getByRole("button", { name: "Copy Message-ID" })).toBeVisible();

  await dialog.getByLabel(/It did not happen/).check();
  await dialog.getByRole("button", { name: "Record and resume" }).click();
  await expect(page.getByTestId("review-status")).toContainText("did not happen");
  expect(await entries(db, id, "outcome.resolved")).toEqual([
    expect.objectContaining({ actor: REVIEWER }),
  ]);
  await expect(page.getByTestId("task-callout")).toContainText("Queued");
});

test("a rejected task says who rejected it and why", async ({ page, db }) => {
  const id = await insertDeadTask(db, "exhausted", "the customer already has a credit note");
  await page.goto(`/tasks/${id}`);
  await page.getByRole("button", { name: "Reject…" }).click();
  const dialog = page.getByRole("dialog", { name: "Reject the dead task" });
  await dialog.getByLabel("Reason").fill("a credit note was issued instead");
  await dialog.getByRole("button", { name: "Reject the task" }).click();

  const callout = page.getByTestId("task-callout");
  await expect(callout).toContainText(`Rejected by ${REVIEWER}`);
  await expect(page.getByTestId("rejection-reason")).toHaveText(
    "Why: a credit note was issued instead",
  );
});
