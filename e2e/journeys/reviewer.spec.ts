// The reviewer's day on the seeded demo: an error group from /dead-letters, one of it rejected
// with a reason, the rest bulk-replayed after reading the aggregated preview; the demo's refund
// dead for bad input ("currency: US dollars") fixed and replayed until it succeeds (a refund
// moves money: a second reviewer confirms the correction after reading it field by field, and
// the task page and the ledger then read "US dollars" → "usd" with both names); an unknown
// outcome resolved; and every one of those outcomes found in /ledger under their own name.
// Rows are staged with SQL as a worker leaves them, or by the demo agents themselves.

import { startDemoReceivers } from "../../worker/demo/receivers";
import {
  asRole,
  createE2eUser,
  enqueue,
  expect,
  randomWord,
  runDemoAgents,
  signedIn,
  test,
} from "../fixtures";
import { stageUnknownOutcome } from "../staging";
import {
  demoAgents,
  entriesOf,
  filterLedger,
  JOURNEY_VIEWPORT,
  ledgerRow,
  REVIEWER,
  shot,
  stageDeadGroup,
  statusOf,
} from "./steps";

test.use({ ...asRole("reviewer"), viewport: JOURNEY_VIEWPORT });

test("reviewer: triage a group, fix a bad input, resolve an outcome, find it all in the ledger", async ({
  page,
  db,
  browser,
  baseURL,
}) => {
  test.setTimeout(150_000);
  const word = randomWord(8);
  const receivers = await startDemoReceivers();
  try {
    // Staged: one error group of four (timeouts from one carrier), the demo's bad refund, a
    // send whose outcome nobody knows.
    const group = await stageDeadGroup(
      db,
      `e2e-journey-${word}`,
      `carrier ${word} timed out after 30000 ms`,
      4,
      "timeout",
    );
    const { refund } = demoAgents(receivers, word);
    const bad = {
      orderId: `ord_${word}`,
      amountCents: 900,
      currency: "US dollars",
      reason: "late delivery",
    };
    const badTask = await enqueue(db, refund.name, bad);
    await runDemoAgents([refund], [badTask], ["dead"]);
    const unknown = await stageUnknownOutcome(db, `${word}@customer.example`);

    // 1. The group, from the dead-letter overview.
    await page.goto("/dead-letters");
    await page.getByRole("link", { name: new RegExp(`carrier ${word} timed out`) }).click();
    await expect(page).toHaveURL(/reason=timeout/);
    await expect(page.getByTestId("dead-letters-matching")).toHaveText("4");
    await shot(page, "reviewer", 1, "error-group");

    // 2. One of them is not worth replaying: rejected with a reason, from its own page.
    const [rejected, ...rest] = group;
    if (!rejected) throw new Error("no group");
    const listUrl = page.url();
    await page.getByRole("link", { name: rejected.slice(0, 8), exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/tasks/${rejected}`));
    await page.getByRole("button", { name: "Reject…" }).click();
    const rejectDialog = page.getByRole("dialog", { name: "Reject the dead task" });
    await rejectDialog.getByLabel("Reason").fill("order cancelled by the customer");
    await rejectDialog.getByRole("button", { name: "Reject the task" }).click();
    await expect(page.getByTestId("task-callout")).toContainText(`Rejected by ${REVIEWER}`);
    await expect(page.getByTestId("rejection-reason")).toHaveText(
      "Why: order cancelled by the customer",
    );

    // 3. The other three, replayed together after reading what that would do.
    await page.goto(listUrl);
    await expect(page.getByTestId("dead-letters-matching")).toHaveText("3");
    await page.getByTestId("select-all-matching").click();
    await page.getByTestId("bulk-replay").click();
    await expect(page.getByTestId("bulk-count")).toContainText("3");
    const preview = page.getByTestId("bulk-preview");
    await expect(preview).toContainText("3 effects would act");
    await expect(preview).toContainText("0 move money");
    await shot(page, "reviewer", 2, "bulk-preview");
    await page.getByTestId("bulk-confirm").click();
    const progress = page.getByTestId("started-bulks").getByTestId("bulk-progress").first();
    await expect(progress.getByTestId("bulk-finished")).toContainText("3 of 3 have an outcome", {
      timeout: 30_000,
    });
    await shot(page, "reviewer", 3, "bulk-done");
    for (const id of rest) expect(await statusOf(db, id)).toBe("queued");
    expect(await statusOf(db, rejected)).toBe("rejected");

    // 4. The demo's refund with "currency: US dollars": the input fixed and replayed.
    await page.goto(`/tasks/${badTask}`);
    await page.getByRole("button", { name: "Fix the input and replay…" }).click();
    const fix = page.getByRole("dialog", { name: "Fix the input and replay" });
    const editor = fix.getByLabel("Corrected input (JSON)");
    await expect(editor).toHaveValue(/US dollars/);
    await editor.fill(JSON.stringify({ ...bad, currency: "usd" }, null, 2));
    await expect(fix.getByTestId("correct-diff")).toContainText('"usd"');
    await fix.getByLabel(/^Note/).fill("the shop sent a display name, not a code");
    await shot(page, "reviewer", 4, "fix-input");
    // The demo's refund moves money: the corrected replay waits for a second, different reviewer.
    await fix
      .getByRole("button", { name: "Request the correction (second reviewer confirms)" })
      .click();
    await expect(page.getByTestId("pending-request")).toContainText(
      `${REVIEWER} asked for a replay from step 1 with a corrected input`,
    );
    const second = await createE2eUser(db, "reviewer");
    const other = await signedIn(browser, baseURL ?? "", second.email, second.password);
    try {
      const confirming = await other.newPage();
      await confirming.setViewportSize(JOURNEY_VIEWPORT);
      await confirming.goto(`/tasks/${badTask}`);
      // What they confirm, field by field, before the button: "US dollars" → "usd".
      const asked = confirming.getByTestId("pending-request");
      const diff = asked.getByTestId("pending-diff");
      await expect(diff.locator("tbody tr")).toHaveCount(1);
      await expect(diff.locator("tbody tr")).toContainText("currency");
      await expect(diff.locator("tbody tr td").nth(0)).toHaveText('"US dollars"');
      await expect(diff.locator("tbody tr td").nth(1)).toHaveText('"usd"');
      await expect(asked).toContainText("Why: the shop sent a display name, not a code");
      await asked.scrollIntoViewIfNeeded();
      await shot(confirming, "reviewer", 6, "second-reviewer-diff");
      await asked
        .getByRole("button", { name: "Confirm the corrected input and replay from step 1" })
        .click();
      await expect(confirming.getByTestId("review-status")).toContainText(
        "Confirmed: the input is corrected",
      );
    } finally {
      await other.close();
    }
    // The worker runs the corrected input; the open page follows it.
    await runDemoAgents([refund], [badTask], ["succeeded"]);
    await expect(page.getByTestId("task-callout")).toContainText("Succeeded", { timeout: 15_000 });
    expect(
      receivers.payments.refunds().filter((r) => r.metadata.order_id === bad.orderId),
    ).toHaveLength(1);
    // The Input section: as enqueued, the correction before → after with both names, and now.
    const input = page.getByRole("region", { name: "Input", exact: true });
    await expect(input.getByTestId("input-enqueued")).toContainText("As enqueued");
    const correction = input.getByTestId("input-correction");
    await expect(correction).toHaveCount(1);
    await expect(correction.getByTestId("correction-people")).toHaveText(
      `Proposed by ${REVIEWER}, confirmed by user:${second.email}; replayed from step 1.`,
    );
    await expect(correction).toContainText("Why: the shop sent a display name, not a code");
    const fixedRow = correction.getByTestId("correction-diff").locator("tbody tr");
    await expect(fixedRow).toHaveCount(1);
    await expect(fixedRow.locator("th")).toContainText("currency");
    await expect(fixedRow.locator("td").nth(0)).toHaveText('"US dollars"');
    await expect(fixedRow.locator("td").nth(1)).toHaveText('"usd"');
    await expect(input.getByTestId("input-now")).toContainText('"currency": "usd"');
    await input.scrollIntoViewIfNeeded();
    await shot(page, "reviewer", 7, "corrected-input");

    // The ledger's one-line summary of the correction: the field before → after and both names.
    await filterLedger(page, { Kind: "task.input_corrected", "Task id": badTask });
    const corrected = ledgerRow(page, badTask, "task.input_corrected");
    await expect(corrected).toHaveCount(1);
    await expect(corrected.getByTestId("entry-summary")).toHaveText(
      `currency "US dollars" → "usd" · proposed by: reviewer@example.com · confirmed by: ${second.email} · from step: 1 · why: the shop sent a display name, not a code`,
    );
    await shot(page, "reviewer", 8, "correction-ledger");

    // 5. The send nobody knows about: the provider's log says it never left.
    await page.goto(`/tasks/${unknown.taskId}`);
    await page.getByRole("button", { name: "Resolve the outcome of send_email…" }).click();
    const resolve = page.getByRole("dialog", { name: "Did send_email happen?" });
    await expect(resolve.getByTestId("provider-refs")).toContainText(unknown.key);
    await resolve.getByLabel(/It did not happen/).check();
    await resolve.getByRole("button", { name: "Record and resume" }).click();
    await expect(page.getByTestId("review-status")).toContainText("did not happen");
    await expect(page.getByTestId("task-callout")).toContainText("Queued");

    // 6. Each outcome, in the ledger under the reviewer's name.
    await filterLedger(page, { Actor: REVIEWER });
    await expect(page).toHaveURL(/actor=user%3Areviewer%40example\.com/);
    const expected: [string, string][] = [
      [rejected, "review.rejected"],
      ...rest.map((id): [string, string] => [id, "replay.requested"]),
      [badTask, "review.requested"],
      [unknown.taskId, "outcome.resolved"],
    ];
    for (const [id, kind] of expected) {
      const row = ledgerRow(page, id, kind);
      await expect(row).toHaveCount(1);
      await expect(row).toContainText(REVIEWER);
    }
    await expect(
      ledgerRow(page, rejected, "review.rejected").getByTestId("entry-summary"),
    ).toContainText("why: order cancelled by the customer");
    // Filed under the reviewer who proposed it: their request, with the correction it asked for.
    await expect(
      ledgerRow(page, badTask, "review.requested").getByTestId("entry-summary"),
    ).toContainText('correction: currency "US dollars" → "usd"');
    await shot(page, "reviewer", 5, "ledger-by-actor");

    // The same, from the record itself.
    for (const [id, kind] of expected) {
      expect(await entriesOf(db, id, kind)).toEqual([expect.objectContaining({ actor: REVIEWER })]);
    }
    expect(await entriesOf(db, badTask, "task.input_corrected")).toEqual([
      expect.objectContaining({
        actor: `user:${second.email}`,
        data: expect.objectContaining({
          before: bad,
          after: { ...bad, currency: "usd" },
          proposedBy: REVIEWER,
          confirmedBy: `user:${second.email}`,
          twoPerson: expect.objectContaining({ requestedBy: REVIEWER }),
        }),
      }),
    ]);
  } finally {
    await receivers.stop();
  }
});
