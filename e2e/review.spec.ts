// Review actions in the browser, signed in as the demo reviewer: approve and reject a parked
// refund from the approvals list, a stale screen told who acted first, a dead letter replayed
// after reading its live preview, and the two-person rule for money across two reviewers.

import type pg from "pg";
import { operator } from "../lib/domain/access";
import { approveTask } from "../lib/server/commands/approve-task";
import {
  asRole,
  createE2eUser,
  E2E_APPROVAL_THRESHOLD_CENTS,
  enqueue,
  expect,
  randomWord,
  refundAgent,
  runTasks,
  signedIn,
  test,
} from "./fixtures";
import { deadPayer, stageUnknownOutcome } from "./staging";

test.use(asRole("reviewer"));

const REVIEWER = "user:reviewer@example.com";

async function approvalOf(db: pg.Pool, taskId: string) {
  const { rows } = await db.query<{
    id: number;
    status: string;
    decided_by: string | null;
    reason: string | null;
  }>("select id, status, decided_by, reason from approvals where task_id = $1 order by id", [
    taskId,
  ]);
  const row = rows[0];
  if (!row) throw new Error(`task ${taskId} requested no approval`);
  return row;
}

async function taskRow(db: pg.Pool, id: string) {
  const { rows } = await db.query<{ status: string; version: number }>(
    "select status, version from tasks where id = $1",
    [id],
  );
  return rows[0];
}

async function entries(db: pg.Pool, id: string, kind: string) {
  const { rows } = await db.query<{ actor: string; data: Record<string, unknown> }>(
    "select actor, data from ledger_entries where task_id = $1 and kind = $2 order by seq",
    [id, kind],
  );
  return rows;
}

async function parked(db: pg.Pool, count: number) {
  const agent = refundAgent(`e2e-review-${randomWord(6)}`);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    ids.push(
      await enqueue(db, agent.name, {
        orderId: `ord_${randomWord(6)}`,
        amountCents: E2E_APPROVAL_THRESHOLD_CENTS + 100 + i,
      }),
    );
  }
  await runTasks([agent], ids, ["awaiting_approval"]);
  return ids;
}

test("a reviewer approves one refund and rejects another from the approvals list", async ({
  page,
  db,
}) => {
  const [toApprove, toReject] = await parked(db, 2);
  if (!toApprove || !toReject) throw new Error("no tasks");
  const a = await approvalOf(db, toApprove);
  const r = await approvalOf(db, toReject);

  await page.goto("/approvals");
  const approveRow = page.locator(`[data-approval-actions="${a.id}"]`);
  await approveRow.getByRole("button", { name: "Approve" }).click();
  const approveDialog = page.getByRole("dialog", { name: "Approve issue_refund" });
  await approveDialog.getByLabel(/Note/).fill("customer called");
  await approveDialog.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(page.getByTestId("review-status")).toContainText(
    "Approved: issue_refund may act with exactly the arguments shown.",
  );
  await expect(approveDialog).toHaveCount(0);
  expect(await approvalOf(db, toApprove)).toMatchObject({
    status: "approved",
    decided_by: REVIEWER,
  });
  expect((await taskRow(db, toApprove))?.status).toBe("queued");
  expect(await entries(db, toApprove, "review.approved")).toEqual([
    expect.objectContaining({
      actor: REVIEWER,
      data: expect.objectContaining({ note: "customer called" }),
    }),
  ]);
  // The decided request left the pending list.
  await expect(page.locator(`article[data-approval-id="${a.id}"]`)).toHaveCount(0);

  const rejectRow = page.locator(`[data-approval-actions="${r.id}"]`);
  await rejectRow.getByRole("button", { name: "Reject" }).click();
  const rejectDialog = page.getByRole("dialog", { name: "Reject issue_refund" });
  const reason = rejectDialog.getByLabel("Reason");
  // A rejection needs a reason: the form will not submit without one.
  await rejectDialog.getByRole("button", { name: "Reject the task" }).click();
  await expect(reason).toHaveJSProperty("validity.valueMissing", true);
  expect((await approvalOf(db, toReject)).status).toBe("pending");
  await reason.fill("duplicate order");
  await rejectDialog.getByRole("button", { name: "Reject the task" }).click();
  await expect(page.getByTestId("review-status")).toContainText("Rejected.");
  expect(await approvalOf(db, toReject)).toMatchObject({
    status: "rejected",
    decided_by: REVIEWER,
    reason: "duplicate order",
  });
  expect((await taskRow(db, toReject))?.status).toBe("rejected");
});

test("a stale screen is told who acted first and offered a reload", async ({ page, db }) => {
  const [id] = await parked(db, 1);
  if (!id) throw new Error("no task");
  await page.goto(`/tasks/${id}`);
  const review = page.getByRole("region", { name: "Review" });
  await expect(review.getByRole("button", { name: "Approve" })).toBeVisible();

  // The screen goes stale: its live re-reads do not arrive (a network hiccup) while someone
  // else decides. Without this the live page would simply show the new state.
  // A re-read already on its way when the route is set would still arrive, after the decision
  // below, and show it: the decision waits until a re-read of this task has been cut.
  const cut = page.waitForEvent(
    "requestfailed",
    (r) => r.url().includes("/api/screens/") && r.url().includes(id),
  );
  await page.route("**/api/screens/**", (route) => route.abort());
  await cut;
  const before = await taskRow(db, id);
  expect(
    await approveTask(db, operator("user:quick@example.com"), {
      taskId: id,
      version: before?.version ?? 0,
    }),
  ).toMatchObject({ ok: true });

  await review.getByRole("button", { name: "Approve" }).click();
  const dialog = page.getByRole("dialog", { name: "Approve issue_refund" });
  await dialog.getByRole("button", { name: "Approve", exact: true }).click();
  const alert = dialog.getByRole("alert");
  await expect(alert).toContainText("the task changed since you loaded it");
  await expect(alert).toContainText("review.approved by user:quick@example.com");
  // Reloaded while the live re-reads are still cut: the new state comes from the reload (a
  // server render), not from a re-read arriving first and closing the dialog under the click.
  await dialog.getByRole("button", { name: "Reload the task" }).click();
  await expect(page.getByTestId("task-callout")).toContainText("Queued");
  await expect(review.getByTestId("review-none")).toBeVisible();
  await page.unroute("**/api/screens/**");
  expect(await entries(db, id, "review.approved")).toHaveLength(1);
});

test("a dead letter is replayed after reading the live preview", async ({ page, db }) => {
  const agent = refundAgent(`e2e-review-${randomWord(6)}`);
  const id = await enqueue(
    db,
    agent.name,
    { orderId: `ord_${randomWord(6)}`, amountCents: 900, failAfterRefund: true },
    { maxAttempts: 1 },
  );
  await runTasks([agent], [id], ["dead"]);

  await page.goto(`/tasks/${id}`);
  await page
    .getByRole("region", { name: "Review" })
    .getByRole("button", { name: "Replay from step…" })
    .click();
  const dialog = page.getByRole("dialog", { name: "Replay from a step" });
  const preview = dialog.getByTestId("review-preview");
  const refund = preview.locator("li[data-replay-key]");
  await expect(refund).toHaveCount(1);
  await expect(refund).toHaveAttribute("data-outcome", "dedupe");
  await expect(refund).toContainText("Deduplicated, unless it changes");
  await expect(preview).toContainText("A replay from step 1 runs 2 journaled steps again");

  // From step 2 the look-up keeps its journaled result, so nothing before the refund can change
  // its arguments: the preview follows the chosen step.
  // The steps are named from the journal, not typed as numbers.
  const step = dialog.getByLabel("Replay from step");
  await expect(step.locator("option")).toHaveText([
    /^1 · \w+ /,
    /^2 · tool /,
    "3 · after the last journaled step",
  ]);
  await step.selectOption("2");
  await expect(preview).toContainText("A replay from step 2 runs 1 journaled step again");
  await expect(refund).toContainText("Returns the stored result");
  await expect(refund).not.toContainText("unless it changes");
  await dialog.getByRole("button", { name: "Confirm replay from step 2" }).click();

  await expect(page.getByTestId("review-status")).toContainText("Replaying from step 2");
  expect((await taskRow(db, id))?.status).toBe("queued");
  expect(await entries(db, id, "replay.requested")).toEqual([
    expect.objectContaining({ actor: REVIEWER, data: expect.objectContaining({ fromStep: 2 }) }),
  ]);
});

test("a replay that reaches money waits for a second, different reviewer", async ({
  page,
  db,
  browser,
  baseURL,
}) => {
  const { taskId: id } = await deadPayer(db);
  await page.goto(`/tasks/${id}`);
  const review = page.getByRole("region", { name: "Review" });
  await review.getByRole("button", { name: "Replay from step…" }).click();
  const dialog = page.getByRole("dialog", { name: "Replay from a step" });
  const pay = dialog.locator("li[data-replay-key]");
  await expect(pay).toContainText("Will act");
  await expect(pay).toContainText("Moves money");
  await expect(dialog.getByTestId("two-person-reasons")).toContainText(
    "pay (step 2) moves money and will act",
  );
  await dialog.getByRole("button", { name: /Request replay from step 1/ }).click();
  await expect(page.getByTestId("review-status")).toContainText(
    "a second, different reviewer must confirm",
  );

  const waiting = review.getByTestId("pending-request");
  await expect(waiting).toContainText(
    `Waiting for a second reviewer — ${REVIEWER} asked for a replay from step 1`,
  );
  // The requester cannot confirm their own request.
  await expect(waiting.getByRole("button", { name: /Confirm/ })).toHaveCount(0);
  await expect(waiting).toContainText("You made this request; someone else must confirm it.");
  expect((await taskRow(db, id))?.status).toBe("dead");
  expect(await entries(db, id, "replay.requested")).toHaveLength(0);

  const second = await createE2eUser(db, "reviewer");
  const other = await signedIn(browser, baseURL ?? "", second.email, second.password);
  try {
    const otherPage = await other.newPage();
    await otherPage.goto(`/tasks/${id}`);
    const request = otherPage.getByTestId("pending-request");
    await expect(request).toContainText(`${REVIEWER} asked for a replay from step 1`);
    await request.getByRole("button", { name: "Confirm replay from step 1" }).click();
    await expect(otherPage.getByTestId("review-status")).toContainText(
      "Confirmed: replaying from step 1",
    );
  } finally {
    await other.close();
  }

  expect((await taskRow(db, id))?.status).toBe("queued");
  const { rows } = await db.query(
    "select status, requested_by, decided_by from review_requests where task_id = $1",
    [id],
  );
  expect(rows).toEqual([
    { status: "confirmed", requested_by: REVIEWER, decided_by: `user:${second.email}` },
  ]);
  expect(await entries(db, id, "replay.requested")).toEqual([
    expect.objectContaining({
      actor: `user:${second.email}`,
      data: expect.objectContaining({
        twoPerson: expect.objectContaining({
          requestedBy: REVIEWER,
          confirmedBy: `user:${second.email}`,
        }),
      }),
    }),
  ]);
});

test("a money approval takes two different reviewers", async ({ page, db, browser, baseURL }) => {
  const [id] = await parked(db, 1);
  if (!id) throw new Error("no task");
  await db.query("update approvals set money = true where task_id = $1", [id]);
  const { id: approvalId } = await approvalOf(db, id);

  await page.goto("/approvals");
  const row = page.locator(`[data-approval-actions="${approvalId}"]`);
  await expect(row.getByTestId("money-approval")).toContainText(
    "two different reviewers must approve",
  );
  await row.getByRole("button", { name: "Approve (first of two)" }).click();
  await page
    .getByRole("dialog", { name: "Approve issue_refund" })
    .getByRole("button", { name: "Approve", exact: true })
    .click();
  await expect(page.getByTestId("review-status")).toContainText(
    "a second, different reviewer must approve before it acts",
  );
  await expect(row.getByTestId("money-approval")).toContainText(`First approval: ${REVIEWER}`);
  await expect(row.getByRole("button", { name: "Approve" })).toBeDisabled();
  expect(await approvalOf(db, id)).toMatchObject({ status: "pending" });
  expect((await taskRow(db, id))?.status).toBe("awaiting_approval");

  const second = await createE2eUser(db, "reviewer");
  const other = await signedIn(browser, baseURL ?? "", second.email, second.password);
  try {
    const otherPage = await other.newPage();
    await otherPage.goto(`/tasks/${id}`);
    const review = otherPage.getByRole("region", { name: "Review" });
    await expect(review.getByTestId("money-approval")).toContainText(`First approval: ${REVIEWER}`);
    await review.getByRole("button", { name: "Approve" }).click();
    await otherPage
      .getByRole("dialog", { name: "Approve issue_refund" })
      .getByRole("button", { name: "Approve", exact: true })
      .click();
    await expect(otherPage.getByTestId("review-status")).toContainText("Approved");
  } finally {
    await other.close();
  }
  const { rows } = await db.query(
    "select status, first_approved_by, decided_by from approvals where task_id = $1",
    [id],
  );
  expect(rows).toEqual([
    { status: "approved", first_approved_by: REVIEWER, decided_by: `user:${second.email}` },
  ]);
  expect((await taskRow(db, id))?.status).toBe("queued");
});

test("an unknown outcome is resolved as 'it happened' with the provider's id", async ({
  page,
  db,
}) => {
  const { taskId: id, key } = await stageUnknownOutcome(db, "ada@example.com");

  await page.goto(`/tasks/${id}`);
  await page.getByRole("button", { name: "Resolve the outcome of send_email…" }).click();
  const dialog = page.getByRole("dialog", { name: "Did send_email happen?" });
  await dialog.getByLabel(/It happened/).check();
  await dialog.getByLabel(/Result/).fill("{not json");
  await dialog.getByRole("button", { name: "Record and resume" }).click();
  await expect(dialog.getByText(/^is not valid JSON/)).toBeVisible();
  await expect(dialog.getByRole("alert")).toHaveText(
    "Not done: one field needs attention (marked above).",
  );
  await expect(dialog.getByLabel(/Result/)).toHaveAttribute("aria-invalid", "true");
  await dialog.getByLabel(/Result/).fill("");
  await dialog.getByLabel("Provider's id", { exact: true }).fill("msg_123");
  await dialog.getByRole("button", { name: "Record and resume" }).click();
  await expect(page.getByTestId("review-status")).toContainText(
    "Recorded that send_email happened",
  );

  const effect = await db.query("select status, result from effects where key = $1", [key]);
  expect(effect.rows[0]).toEqual({ status: "succeeded", result: { providerId: "msg_123" } });
  expect((await taskRow(db, id))?.status).toBe("queued");
  expect(await entries(db, id, "outcome.resolved")).toEqual([
    expect.objectContaining({
      actor: REVIEWER,
      data: { happened: true, result: { providerId: "msg_123" }, resumed: true },
    }),
  ]);
});

test.describe("as ops", () => {
  test.use(asRole("ops"));

  test("a dead letter shows no review buttons to a role that cannot review", async ({
    page,
    db,
  }) => {
    const { taskId: id } = await deadPayer(db);
    await page.goto(`/tasks/${id}`);
    await expect(
      page.getByRole("region", { name: "Review" }).getByTestId("review-none"),
    ).toHaveText("Your role cannot act on this task; a reviewer can.");
    await expect(page.getByRole("button", { name: /Replay|Resume|Cancel/ })).toHaveCount(0);
  });
});

test.describe("as admin", () => {
  test.use(asRole("admin"));

  test("an admin cancels a dead task", async ({ page, db }) => {
    const { taskId: id } = await deadPayer(db);
    await page.goto(`/tasks/${id}`);
    await page.getByRole("button", { name: "Cancel task…" }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel the task" });
    await dialog.getByLabel(/Reason/).fill("customer closed the account");
    await dialog.getByRole("button", { name: "Cancel the task" }).click();
    await expect(page.getByTestId("review-status")).toContainText("Cancelled.");
    expect((await taskRow(db, id))?.status).toBe("cancelled");
    expect(await entries(db, id, "task.cancelled")).toEqual([
      expect.objectContaining({
        actor: "user:admin@example.com",
        data: expect.objectContaining({ reason: "customer closed the account" }),
      }),
    ]);
  });

  test("an admin changes an agent's retry policy; a stale form is refused", async ({
    page,
    db,
  }) => {
    const agent = `e2e-policy-${randomWord(6)}`;
    await enqueue(db, agent, {});
    await page.goto("/settings/retry-policies");
    const agents = page.getByRole("region", { name: "Agent overrides" });
    await agents.getByLabel("Add an override for").selectOption(agent);
    await agents.getByRole("button", { name: `Set ${agent}…` }).click();
    const dialog = page.getByRole("dialog", { name: `Retry policy: ${agent}` });
    await dialog.getByLabel(/Max attempts/).fill("7");
    await dialog.getByRole("button", { name: "Save policy" }).click();
    await expect(agents.getByTestId("review-status")).toContainText(
      `Saved the agent:${agent} policy (version 1)`,
    );
    const saved = await db.query(
      "select max_attempts, version, updated_by from retry_policies where scope = $1",
      [`agent:${agent}`],
    );
    expect(saved.rows[0]).toEqual({
      max_attempts: 7,
      version: 1,
      updated_by: "user:admin@example.com",
    });

    // The page has re-read the saved policy (its row now offers Edit): it holds version 1.
    await expect(agents.getByRole("button", { name: `Edit ${agent}…` })).toBeVisible();
    // Another admin saves first; this page still shows version 1.
    await db.query("update retry_policies set max_attempts = 9, version = 2 where scope = $1", [
      `agent:${agent}`,
    ]);
    await agents.getByRole("button", { name: `Edit ${agent}…` }).click();
    const edit = page.getByRole("dialog", { name: `Retry policy: ${agent}` });
    await expect(edit.getByLabel(/Max attempts/)).toHaveValue("7");
    await edit.getByLabel(/Max attempts/).fill("3");
    await edit.getByRole("button", { name: "Save policy" }).click();
    await expect(edit.getByRole("alert")).toContainText(
      `the agent:${agent} policy changed since you loaded it (now version 2)`,
    );
    const after = await db.query("select max_attempts from retry_policies where scope = $1", [
      `agent:${agent}`,
    ]);
    expect(after.rows[0]).toEqual({ max_attempts: 9 });
  });
});
