// The second reviewer: a money replay another reviewer asked for waits in their inbox; they
// read what it would do, confirm it from there, and find their confirmation in the ledger under
// their own name, next to the first reviewer's request.
import { operator } from "../../lib/domain/access";
import { replayTask } from "../../lib/server/commands/replay-task";
import { asRole, createE2eUser, expect, signedIn, test } from "../fixtures";
import { deadPayer } from "../staging";
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
