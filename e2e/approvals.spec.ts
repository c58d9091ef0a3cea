import { operator } from "../lib/domain/access";
import { approveTask } from "../lib/server/commands/approve-task";
import { rejectTask } from "../lib/server/commands/reject-task";
import {
  E2E_APPROVAL_THRESHOLD_CENTS,
  enqueue,
  expect,
  randomWord,
  refundAgent,
  runTasks,
  test,
} from "./fixtures";

type Db = Parameters<typeof enqueue>[0];

async function approvalOf(db: Db, taskId: string) {
  const { rows } = await db.query<{ id: number; fingerprint: string; effect_key: string }>(
    "select id, fingerprint, effect_key from approvals where task_id = $1",
    [taskId],
  );
  const row = rows[0];
  if (!row) throw new Error(`task ${taskId} requested no approval`);
  return row;
}

async function versionOf(db: Db, taskId: string): Promise<number> {
  const { rows } = await db.query<{ version: number }>("select version from tasks where id = $1", [
    taskId,
  ]);
  return rows[0]?.version ?? 0;
}

test("the screen explains what will appear, or lists what is waiting", async ({ page, db }) => {
  const { rows } = await db.query<{ n: number }>(
    "select count(*)::int as n from approvals where status = 'pending'",
  );
  const pending = rows[0]?.n ?? 0;
  await page.goto("/approvals");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Approvals");
  await expect(page.getByTestId("approvals-pending")).toHaveAttribute(
    "data-value",
    String(pending),
  );
  const empty = page.getByText("Nothing is waiting for approval");
  if (pending === 0) {
    await expect(empty).toBeVisible();
    await expect(page.getByText(/appears here with the exact arguments/)).toBeVisible();
  } else {
    await expect(empty).toHaveCount(0);
    await expect(page.locator("article[data-approval-id]")).toHaveCount(Math.min(pending, 100));
  }
});

test("pending approvals show the exact arguments and fingerprint, oldest first", async ({
  page,
  db,
}) => {
  const agent = refundAgent(`e2e-approvals-${randomWord(6)}`);
  const [firstOrder, secondOrder] = [`ord_${randomWord(6)}`, `ord_${randomWord(6)}`];
  const first = await enqueue(db, agent.name, {
    orderId: firstOrder,
    amountCents: E2E_APPROVAL_THRESHOLD_CENTS + 1,
  });
  const second = await enqueue(db, agent.name, {
    orderId: secondOrder,
    amountCents: E2E_APPROVAL_THRESHOLD_CENTS + 50_000,
  });
  await runTasks([agent], [first, second], ["awaiting_approval"]);
  const a = await approvalOf(db, first);
  const b = await approvalOf(db, second);
  // The second request has waited longest: it must come first.
  await db.query("update approvals set requested_at = now() - interval '3 hours' where id = $1", [
    b.id,
  ]);

  await page.goto("/approvals");
  const cards = page.locator("article[data-approval-id]");
  const order = await cards.evaluateAll((els) =>
    els.map((el) => Number(el.getAttribute("data-approval-id"))),
  );
  expect(order.indexOf(b.id)).toBeGreaterThanOrEqual(0);
  expect(order.indexOf(b.id)).toBeLessThan(order.indexOf(a.id));

  const card = page.locator(`article[data-approval-id="${b.id}"]`);
  await expect(card.getByRole("heading", { level: 3 })).toHaveText(
    `issue_refund for ${agent.name}`,
  );
  await expect(card).toContainText(`"orderId": "${secondOrder}"`);
  await expect(card).toContainText(`"amountCents": ${E2E_APPROVAL_THRESHOLD_CENTS + 50_000}`);
  await expect(card).toContainText(b.fingerprint);
  await expect(card).toContainText(b.effect_key);
  await expect(card).toContainText(/Waiting 3 h( \d+ m)?/);

  await card.getByRole("link", { name: second.slice(0, 8) }).click();
  await expect(page).toHaveURL(new RegExp(`/tasks/${second}$`));
  await expect(page.getByTestId("task-callout")).toContainText("Waiting for a person's approval");
});

test("decisions appear under recently decided with who made them", async ({ page, db }) => {
  const agent = refundAgent(`e2e-approvals-${randomWord(6)}`);
  const approved = await enqueue(db, agent.name, {
    orderId: `ord_${randomWord(6)}`,
    amountCents: E2E_APPROVAL_THRESHOLD_CENTS + 2,
  });
  const rejected = await enqueue(db, agent.name, {
    orderId: `ord_${randomWord(6)}`,
    amountCents: E2E_APPROVAL_THRESHOLD_CENTS + 3,
  });
  await runTasks([agent], [approved, rejected], ["awaiting_approval"]);
  const reason = `not our order ${randomWord(4)}`;
  expect(
    await approveTask(db, operator("rita@example.com"), {
      taskId: approved,
      version: await versionOf(db, approved),
    }),
  ).toMatchObject({ ok: true });
  expect(
    await rejectTask(db, operator("sam@example.com"), {
      taskId: rejected,
      version: await versionOf(db, rejected),
      reason,
    }),
  ).toMatchObject({ ok: true });
  // The approved refund runs once the worker picks the task up again.
  await runTasks([agent], [approved], ["succeeded"]);
  const a = await approvalOf(db, approved);
  const r = await approvalOf(db, rejected);

  await page.goto("/approvals");
  await expect(page.locator(`article[data-approval-id="${a.id}"]`)).toHaveCount(0);
  const decided = page.getByRole("region", { name: "Recently decided" });
  const approvedRow = decided.locator(`tr[data-approval-id="${a.id}"]`);
  await expect(approvedRow).toContainText("Approved");
  await expect(approvedRow).toContainText("rita@example.com");
  await expect(approvedRow).toContainText("Started");
  const rejectedRow = decided.locator(`tr[data-approval-id="${r.id}"]`);
  await expect(rejectedRow).toContainText("Rejected");
  await expect(rejectedRow).toContainText("sam@example.com");
  await expect(rejectedRow).toContainText(reason);
  await expect(rejectedRow).toContainText("Will not run");
  // Newest decision first.
  const ids = await decided
    .locator("tbody tr")
    .evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute("data-approval-id"))));
  expect(ids.indexOf(r.id)).toBeLessThan(ids.indexOf(a.id));
});
