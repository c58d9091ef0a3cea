// Live screens: a page left open shows what the worker (or anyone) changed without a reload,
// keeps polling only while visible, and an action refreshes its live data at once.
import { expect, insertDeadTask, randomWord, test } from "./fixtures";

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
