// The second reviewer: a money replay another reviewer asked for waits in their inbox; they
// read what it would do, confirm it from there, and find their confirmation in the ledger under
// their own name, next to the first reviewer's request. And a money bulk another reviewer froze:
// from the inbox to its page, where they read why it was frozen, its tasks, the amounts summed
// per currency, the aggregated preview and one task's own, before they confirm it.
import { randomUUID } from "node:crypto";
import { operator } from "../../lib/domain/access";
import { formatMoney } from "../../lib/domain/money";
import { dbNow } from "../../lib/server/commands/bulk-fixtures";
import { requestBulkAction } from "../../lib/server/commands/bulk-request";
import { replayTask } from "../../lib/server/commands/replay-task";
import { blockingViolations } from "../axe";
import { asRole, createE2eUser, expect, randomWord, signedIn, test } from "../fixtures";
import { deadPayer } from "../staging";
import { type RefundMoney, stageDeadRefunds, sumsOf, withRefundCatalog } from "../staging-refunds";
import { entriesOf, filterLedger, JOURNEY_VIEWPORT, ledgerRow, REVIEWER, shot } from "./steps";

test.use({ ...asRole("reviewer"), viewport: JOURNEY_VIEWPORT });

test("second reviewer: confirms a money replay from the inbox and sees it in the ledger", async ({
  page,
  db,
  browser,
  baseURL,
}) => {
  test.setTimeout(90_000);
  const { taskId, version } = await deadPayer(db);
  // The first reviewer asks: the task's `pay` moves money, so the request waits for a second.
  expect(await replayTask(db, operator(REVIEWER), { taskId, version, fromStep: 1 })).toMatchObject({
    ok: true,
    value: { waitingFor: { requestedBy: REVIEWER } },
  });
  // The one who asked cannot be the one who confirms.
  await page.goto(`/tasks/${taskId}`);
  await expect(page.getByTestId("pending-request")).toContainText(
    `${REVIEWER} asked for a replay from step 1`,
  );
  await expect(
    page.getByTestId("pending-request").getByRole("button", { name: /^Confirm replay/ }),
  ).toHaveCount(0);

  const second = await createE2eUser(db, "reviewer");
  const actor = `user:${second.email}`;
  const context = await signedIn(browser, baseURL ?? "", second.email, second.password);
  try {
    const inbox = await context.newPage();
    await inbox.setViewportSize(JOURNEY_VIEWPORT);
    // 1. The inbox says what waits for them.
    await inbox.goto("/inbox?kind=confirmation");
    const item = inbox.locator(`[data-testid="inbox-item"][data-task-id="${taskId}"]`);
    await expect(item).toHaveAttribute("data-kind", "confirmation");
    await expect(item).toContainText(`${REVIEWER} asked for a replay from step 1`);
    await expect(item.getByTestId("needs-you")).toBeVisible();
    await expect(inbox.getByTestId("inbox-count")).toBeVisible();
    await shot(inbox, "second-reviewer", 1, "inbox");

    // 2. From the inbox to the request, with what the replay would do.
    await item.getByRole("link", { name: `Open task ${taskId.slice(0, 8)}` }).click();
    await expect(inbox).toHaveURL(`/tasks/${taskId}?inbox=confirmation`);
    const request = inbox.getByTestId("pending-request");
    await expect(request).toContainText(`${REVIEWER} asked for a replay from step 1`);
    await shot(inbox, "second-reviewer", 2, "request");
    await request.getByRole("button", { name: "Confirm replay from step 1" }).click();
    await expect(inbox.getByTestId("review-status")).toContainText(
      "Confirmed: replaying from step 1",
    );
    await expect(inbox.getByTestId("inbox-position")).toContainText("Done here");

    // 3. The ledger under their name: the replay they confirmed, with who asked first.
    await filterLedger(inbox, { Actor: actor, "Task id": taskId });
    const row = ledgerRow(inbox, taskId, "replay.requested");
    await expect(row).toHaveCount(1);
    await expect(row).toContainText(actor);
    await row.getByRole("button", { name: /Show data of entry/ }).click();
    const data = inbox.getByTestId("entry-pretty-json");
    await expect(data).toContainText(`"requestedBy": "${REVIEWER}"`);
    await expect(data).toContainText(`"confirmedBy": "${actor}"`);
    await shot(inbox, "second-reviewer", 3, "ledger");
  } finally {
    await context.close();
  }

  const { rows } = await db.query(
    "select status, requested_by, decided_by from review_requests where task_id = $1",
    [taskId],
  );
  expect(rows).toEqual([{ status: "confirmed", requested_by: REVIEWER, decided_by: actor }]);
  expect(await entriesOf(db, taskId, "replay.requested")).toEqual([
    expect.objectContaining({
      actor,
      data: expect.objectContaining({
        twoPerson: expect.objectContaining({ requestedBy: REVIEWER, confirmedBy: actor }),
      }),
    }),
  ]);
  const status = await db.query<{ status: string }>("select status from tasks where id = $1", [
    taskId,
  ]);
  expect(status.rows[0]?.status).toBe("queued");
});

test("second reviewer: reads a waiting money bulk from the inbox (tasks, amounts, preview) and confirms it", async ({
  page,
  db,
  browser,
  baseURL,
}) => {
  test.setTimeout(90_000);
  await withRefundCatalog(db, "refund", async () => {
    const word = randomWord(6);
    const money: RefundMoney[] = [1_299, 48_000, 2_500, 12_000, 900, 7_450, 3_333, 15_000].map(
      (amountCents, i) => ({ amountCents, currency: i % 4 === 3 ? "eur" : "usd" }),
    );
    const ids = await stageDeadRefunds(
      db,
      "refund",
      `payments outage ${word}: 502 Bad Gateway`,
      money,
      word,
    );
    const versions = await db.query<{ id: string; version: number }>(
      "select id, version from tasks where id = any($1::uuid[])",
      [ids],
    );
    // Ledger text is shown as text: markup in a reason stays characters.
    const reason =
      "Payments are back since 14:05; replaying the refunds the outage <b>dead-lettered</b>.";
    // The first reviewer froze them (the dialog's journey is the outage drill in triage.spec.ts).
    const frozen = await requestBulkAction(db, operator(REVIEWER), {
      bulkId: randomUUID(),
      action: "replay",
      stepName: null,
      reason,
      selection: {
        kind: "ids",
        tasks: versions.rows.map((r) => ({ taskId: r.id, version: r.version })),
      },
      asOf: await dbNow(db),
    });
    if (!frozen.ok) throw new Error(frozen.message);
    expect(frozen.value.status).toBe("awaiting_second");
    const bulkId = frozen.value.id;
    // The one who froze it sees it wait for someone else, not for themselves.
    await page.goto(`/dead-letters/bulk/${bulkId}`);
    await expect(page.getByTestId("bulk-count-awaiting")).toHaveText(
      "8 waiting for a second, different reviewer (you froze them)",
    );
    await expect(page.getByRole("button", { name: "Confirm as second reviewer" })).toHaveCount(0);

    const second = await createE2eUser(db, "reviewer");
    const context = await signedIn(browser, baseURL ?? "", second.email, second.password);
    try {
      const inbox = await context.newPage();
      await inbox.setViewportSize(JOURNEY_VIEWPORT);
      // 1. The inbox lists the set as a confirmation they owe.
      await inbox.goto("/inbox?kind=confirmation");
      const item = inbox.locator(`[data-testid="inbox-bulk"][data-bulk-id="${bulkId}"]`);
      await expect(item).toContainText("Bulk replay of 8 tasks");
      await expect(item).toContainText("Needs you");
      await expect(item.getByTestId("inbox-bulk-waiting")).toHaveText(
        "8 waiting for your confirmation",
      );
      await item.scrollIntoViewIfNeeded();
      await shot(inbox, "second-reviewer-bulk", 1, "inbox");

      // 2. Its page: who froze it, when and why; the count says what it counts; the money.
      await item.getByRole("link").click();
      await expect(inbox).toHaveURL(new RegExp(`/dead-letters/bulk/${bulkId}`));
      await expect(inbox.getByRole("heading", { name: "Bulk replay of 8 tasks" })).toBeVisible();
      const why = inbox.getByTestId("bulk-why");
      await expect(why).toContainText(REVIEWER);
      await expect(why).toContainText(" UTC");
      await expect(inbox.getByTestId("bulk-reason")).toHaveText(reason);
      await expect(inbox.getByTestId("bulk-reason").locator("b")).toHaveCount(0);
      await expect(why).toContainText("8 tasks ticked one by one");
      const panel = inbox.getByTestId("bulk-progress");
      await expect(panel.getByTestId("bulk-count-awaiting")).toHaveText(
        "8 waiting for your confirmation",
      );
      const preview = panel.getByTestId("bulk-preview");
      await expect(preview).toContainText("8 effects would act");
      await expect(preview).toContainText("8 move money");
      for (const [currency, minor] of sumsOf(money)) {
        await expect(
          preview.locator(`[data-testid="bulk-money-total"][data-currency="${currency}"]`),
        ).toContainText(formatMoney(minor, currency));
      }
      await expect(preview).toContainText("USD 634.82 in 6 effects");
      await expect(preview).toContainText("EUR 270.00 in 2 effects");
      await shot(inbox, "second-reviewer-bulk", 2, "review");

      // 3. The tasks themselves, as the dead-letter list shows them, and one task's own preview.
      const tasks = inbox.locator("#bulk-tasks");
      await expect(inbox.getByTestId("bulk-members-matching")).toHaveText("8");
      await expect(tasks.locator("tbody tr[data-task-id]")).toHaveCount(8);
      const big = ids[1] ?? "";
      const row = tasks.locator(`tr[data-task-id="${big}"]`);
      await expect(row).toContainText("refund");
      await expect(row).toContainText("502 Bad Gateway");
      await row.getByTestId("member-preview-toggle").click();
      const own = tasks.locator(`tr[data-detail-of="${big}"]`).getByTestId("member-preview");
      await expect(own).toContainText("USD 480.00 in 1 effect");
      await expect(own).toContainText("Will act");
      await expect(own).toContainText("Moves money");
      await row.scrollIntoViewIfNeeded();
      await shot(inbox, "second-reviewer-bulk", 3, "tasks");
      // The review page keeps the dashboard's rule: no serious or critical WCAG 2.1 A/AA violation.
      expect((await blockingViolations(inbox)).map((v) => v.id)).toEqual([]);
      // The list filters as the dead-letter list does: by tool, here none of them.
      await inbox.getByLabel("Tool", { exact: true }).fill("send_email");
      await inbox.getByRole("button", { name: "Filter", exact: true }).click();
      await expect(inbox.getByTestId("bulk-members-matching")).toHaveText("0");
      await inbox.goto(`/dead-letters/bulk/${bulkId}`);

      // 4. They confirm; the page follows each task's outcome.
      await inbox
        .getByTestId("bulk-progress")
        .getByRole("button", { name: "Confirm as second reviewer" })
        .click();
      await expect(inbox.getByTestId("bulk-finished")).toContainText("8 of 8 have an outcome", {
        timeout: 30_000,
      });
      await expect(inbox.getByTestId("bulk-count-done")).toHaveText("8 done");
      await shot(inbox, "second-reviewer-bulk", 4, "confirmed");
    } finally {
      await context.close();
    }
    const { rows } = await db.query<{ status: string; confirmed_by: string }>(
      "select status, confirmed_by from bulk_actions where id = $1",
      [bulkId],
    );
    expect(rows[0]).toEqual({ status: "done", confirmed_by: `user:${second.email}` });
  });
});
