// The triage queue holds the work of agents: with the alert sink unreachable (300 alert
// deliveries dead) and 60 refunds dead by one provider error, the inbox and the dead-letter
// groups count the refunds, the failing destination is one line (host only, name as text), the
// alert deliveries page past 100 under their own filter, "You may" offers what the table allows
// for each task, every count of one thing on a screen is one number, and an admin's "Retry all"
// requeues the destination's deliveries once. Runs on the shared e2e database (no worker), so
// counts are compared with what the page said before the outage was staged.
import { mkdirSync } from "node:fs";
import type { Page } from "@playwright/test";
import { stageAlertOutage } from "../db/testing/alert-outage";
import { expect, randomWord, test } from "./fixtures";
import { stageUnknownOutcome } from "./staging";

const count = async (page: Page, testId: string) =>
  Number(((await page.getByTestId(testId).first().textContent()) ?? "").replace(/,/g, ""));

test("an unreachable alert sink is one line; the inbox and the groups count the 60 refunds", async ({
  page,
  db,
}) => {
  // Many screens and 360 staged rows on a shared 2-core box.
  test.setTimeout(120_000);
  await page.goto("/inbox");
  const allBefore = await count(page, "inbox-filter-count-all");
  const systemBefore = await count(page, "inbox-filter-count-system");

  const word = randomWord(8);
  const name = `<b>sink</b> ${word}`;
  const refundError = `refund failed: provider ${word} unavailable`;
  const outage = await stageAlertOutage(db, {
    deliveries: 300,
    refunds: 60,
    name,
    refundError,
    enabled: false,
  });
  try {
    await page.reload();
    await expect(page.getByTestId("inbox-filter-count-all")).toHaveText(
      (allBefore + 60).toLocaleString("en-US"),
    );
    await expect(page.getByTestId("inbox-filter-count-system")).toHaveText(
      (systemBefore + 300).toLocaleString("en-US"),
    );
    // The sidebar says the same number as the page (an admin may act on all of it).
    await expect(page.getByTestId("inbox-count")).toHaveAttribute(
      "data-count",
      String(allBefore + 60),
    );
    // The refunds are one error group of 60.
    const group = page.getByTestId("inbox-group").filter({ hasText: word });
    await expect(group).toContainText("60 tasks");

    // The destination is one line: host and port only, the rule's name as text.
    const line = page.locator(
      `[data-testid="failing-destination"][data-rule-id="${outage.ruleId}"]`,
    );
    await expect(line).toHaveCount(1);
    await expect(line.getByTestId("failing-destination-line")).toHaveText(
      /^Alerts to 127\.0\.0\.1:4343 failing since \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC, 300 undelivered$/,
    );
    await expect(line).toContainText(`Rule “${name}”`);
    await expect(line.locator("b")).toHaveCount(0);
    await expect(line).toContainText("receiver unreachable (ECONNREFUSED)");
    const html = await page.content();
    expect(html).not.toContain("s3cret-in-query");
    expect(html).not.toContain("T0KEN-IN-PATH");
    // No alert delivery is listed with the agents' work.
    await expect(page.locator('[data-testid="inbox-item"][data-kind="system"]')).toHaveCount(0);
    mkdirSync("docs/screenshots", { recursive: true });
    await page.screenshot({ path: "docs/screenshots/inbox-alert-outage.png" });

    // "You may" is the table's answer for this task: nothing to resolve, nothing to withdraw.
    // The refunds died last: page on (by the address) until the first of them is listed.
    await page.goto("/inbox?kind=dead_letter");
    await expect(page.getByTestId("inbox-item").first()).toBeVisible();
    const refund = page.locator(
      `[data-testid="inbox-item"][data-task-id="${outage.refundIds[0] ?? ""}"]`,
    );
    for (let pages = 0; (await refund.count()) === 0 && pages < 20; pages++) {
      const next = await page.getByTestId("inbox-next-page").getAttribute("href");
      if (next === null) break;
      await page.goto(next);
      await expect(page.getByTestId("inbox-item").first()).toBeVisible();
    }
    await expect(refund).toContainText("You may: resume, reject, replay, correct.");
    // An unknown outcome offers resolving it and asking the provider.
    const unknown = await stageUnknownOutcome(db, `e2e-${word}@example.com`);
    await page.goto("/inbox?kind=unknown_outcome");
    await expect(
      page.locator(`[data-testid="inbox-item"][data-task-id="${unknown.taskId}"]`),
    ).toContainText("You may: resume, reject, replay, correct, resolve, reconcile.");

    // The alert deliveries, asked for, page past 100 by the address.
    await page.goto("/inbox?kind=system");
    const items = page.locator('[data-testid="inbox-item"]');
    await expect(items).toHaveCount(100);
    await expect(page.getByTestId("inbox-page-summary")).toContainText(
      `100 oldest of ${(systemBefore + 300).toLocaleString("en-US")}`,
    );
    const firstPage = await items.evaluateAll((els) =>
      els.map((e) => e.getAttribute("data-task-id")),
    );
    await page.getByTestId("inbox-next-page").click();
    await expect(page).toHaveURL(/\/inbox\?kind=system&after=/);
    await expect(page.getByRole("link", { name: "Back to the oldest" })).toBeVisible();
    await expect(items).toHaveCount(100);
    const secondPage = await items.evaluateAll((els) =>
      els.map((e) => e.getAttribute("data-task-id")),
    );
    expect(secondPage.filter((id) => firstPage.includes(id))).toEqual([]);

    // The dead-letter screen: the groups count the refunds; cards and headings agree.
    await page.goto("/dead-letters");
    await expect(
      page.locator(`[data-testid="failing-destination"][data-rule-id="${outage.ruleId}"]`),
    ).toHaveCount(1);
    const card = await count(page, "dead-letters-exhausted");
    expect(card).toBeGreaterThanOrEqual(60);
    await expect(page.locator("#reason-exhausted h2")).toHaveText(
      `Retries exhausted · ${card.toLocaleString("en-US")}`,
    );
    await expect(page.locator("tr[data-fingerprint]", { hasText: word })).toContainText("60");
    const all = await count(page, "dead-letters-matching");
    // Counted in on request: the 300 deliveries join the list.
    await page.goto("/dead-letters?system=include");
    await expect(page.getByTestId("dead-letters-matching")).toHaveText(
      (all + systemBefore + 300).toLocaleString("en-US"),
    );

    // Retry all: one press (and its confirmation) requeues the destination's 300 deliveries.
    await page.goto("/settings/alerts");
    const retryLine = page.locator(
      `[data-testid="failing-destination"][data-rule-id="${outage.ruleId}"]`,
    );
    await retryLine.getByRole("button", { name: "Retry all 300" }).click();
    await retryLine.getByRole("button", { name: "Yes, retry all" }).click();
    // 300 replays, each its own transaction: a few seconds on a busy box. The outcome stays
    // when the line leaves.
    await expect(page.getByText("300 alerts to 127.0.0.1:4343 queued again.")).toBeVisible({
      timeout: 30_000,
    });
    await expect(retryLine).toHaveCount(0);
    const { rows } = await db.query<{ status: string; n: number }>(
      "select status, count(*)::int as n from tasks where id = any($1::uuid[]) group by 1",
      [outage.deliveryIds],
    );
    expect(rows).toEqual([{ status: "queued", n: 300 }]);
    await page.goto("/inbox");
    await expect(
      page.locator(`[data-testid="failing-destination"][data-rule-id="${outage.ruleId}"]`),
    ).toHaveCount(0);
  } finally {
    // No worker runs here: leave nothing queued or dead for the specs after this one.
    await db.query(
      "update tasks set status = 'cancelled', dead_reason = null, version = version + 1 where id = any($1::uuid[]) and status in ('dead', 'queued')",
      [[...outage.deliveryIds, ...outage.refundIds]],
    );
    await db.query("delete from alert_rules where id = $1", [outage.ruleId]);
  }
});
