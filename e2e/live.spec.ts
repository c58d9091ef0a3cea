// Live screens: a page left open shows what the worker (or anyone) changed without a reload,
// keeps polling only while visible, and an action refreshes its live data at once.
import { mkdirSync } from "node:fs";
import { operator } from "../lib/domain/access";
import { rejectTask } from "../lib/server/commands/reject-task";
import {
  E2E_APPROVAL_THRESHOLD_CENTS,
  enqueue,
  expect,
  insertDeadTask,
  randomWord,
  refundAgent,
  runTasks,
  test,
} from "./fixtures";

test("a tasks list left open shows a new task and a status change by itself", async ({
  page,
  db,
}) => {
  const agent = `e2e-live-${randomWord()}`;
  await page.goto("/tasks?status=dead");
  await expect(page.getByTestId("live-status")).toContainText("Live");
  // A reload would lose this; a live update keeps it.
  await page.evaluate(() => Object.assign(window, { __stillThisPage: true }));

  // Written behind the page's back, as a worker would.
  const { rows } = await db.query<{ id: string }>(
    `insert into tasks (agent, input, status, dead_reason, attempts, last_error, created_by)
     values ($1, '{}'::jsonb, 'dead', 'exhausted', 3, '{"message":"provider down"}', 'e2e') returning id`,
    [agent],
  );
  const id = rows[0]?.id ?? "";
  const row = page.locator(`tbody tr[data-task-id="${id}"]`);
  await expect(row).toBeVisible({ timeout: 15_000 });
  await expect(row).toContainText(agent);

  // It leaves the dead list when it stops being dead.
  await db.query(
    "update tasks set status = 'rejected', dead_reason = null, version = version + 1 where id = $1",
    [id],
  );
  await expect(row).toHaveCount(0, { timeout: 15_000 });
  expect(await page.evaluate(() => "__stillThisPage" in window)).toBe(true);
});

test("the live read answers the page's own query and refuses a bad address", async ({
  page,
  db,
}) => {
  const id = await insertDeadTask(db, "exhausted", `live ${randomWord()}`);
  const good = await page.request.get("/api/screens/tasks?status=dead");
  expect(good.status()).toBe(200);
  const body = (await good.json()) as { tasks: { id: string }[] };
  expect(body.tasks.map((t) => t.id)).toContain(id);

  const bad = await page.request.get("/api/screens/tasks?status=sideways");
  expect(bad.status()).toBe(400);
  expect(await bad.json()).toMatchObject({
    status: 400,
    detail: expect.stringContaining("status"),
  });
});

test("an approvals page left open shows a new request, and another reviewer's decision, by itself", async ({
  page,
  db,
}) => {
  const agent = refundAgent(`e2e-live-approvals-${randomWord(6)}`);
  await page.goto("/approvals");
  await expect(page.getByTestId("live-status")).toContainText("Live");
  await page.evaluate(() => Object.assign(window, { __stillThisPage: true }));

  // The worker parks a refund for approval while the page is open.
  const orderId = `ord_${randomWord(6)}`;
  const id = await enqueue(db, agent.name, {
    orderId,
    amountCents: E2E_APPROVAL_THRESHOLD_CENTS + 7,
  });
  await runTasks([agent], [id], ["awaiting_approval"]);
  const { rows } = await db.query<{ id: number; version: number }>(
    `select a.id, t.version from approvals a join tasks t on t.id = a.task_id where a.task_id = $1`,
    [id],
  );
  const request = rows[0];
  if (!request) throw new Error(`task ${id} requested no approval`);
  // The page lists the 100 oldest requests; on a database other specs filled, make this one the
  // oldest so it is among them.
  await db.query("update approvals set requested_at = now() - interval '30 days' where id = $1", [
    request.id,
  ]);
  const card = page.locator(`article[data-approval-id="${request.id}"]`);
  await expect(card).toBeVisible({ timeout: 15_000 });
  await expect(card).toContainText(`"orderId": "${orderId}"`);
  await expect(page.locator(`[data-approval-actions="${request.id}"]`)).toBeVisible();
  await page.setViewportSize({ width: 1280, height: 800 });
  mkdirSync("docs/screenshots", { recursive: true });
  await page.screenshot({ path: "docs/screenshots/approvals.png" });

  // Another reviewer decides it elsewhere: it leaves the pending list and shows as decided, by whom.
  const other = `e2e-other-${randomWord(6)}@example.com`;
  expect(
    await rejectTask(db, operator(other), {
      taskId: id,
      version: request.version,
      reason: "duplicate order",
    }),
  ).toMatchObject({ ok: true });
  await expect(card).toHaveCount(0, { timeout: 15_000 });
  const decided = page.locator(`#decided tr[data-approval-id="${request.id}"]`);
  await expect(decided).toContainText(other);
  await expect(decided).toContainText("duplicate order");
  expect(await page.evaluate(() => "__stillThisPage" in window)).toBe(true);
});

test("the approvals live read answers the page's own DTO", async ({ page }) => {
  const response = await page.request.get("/api/screens/approvals");
  expect(response.status()).toBe(200);
  expect(await response.json()).toMatchObject({
    approvals: { pending: expect.any(Array), decided: expect.any(Array) },
    reviews: expect.any(Object),
  });
});
