import { countTasks, expect, randomWord, test } from "./fixtures";

test("tasks filter by status and page by creation time without gaps or repeats", async ({
  page,
  db,
}) => {
  const agent = `e2e-${randomWord()}`;
  // One statement: every row gets the same created_at, so only the id breaks the tie between
  // pages. A cursor that dropped the id, or rounded the time, would lose or repeat rows.
  const { rows } = await db.query<{ id: string }>(
    `insert into tasks (agent, input, status, created_by)
     select $1, jsonb_build_object('n', n), 'rejected', 'e2e' from generate_series(1, 30) n
     returning id`,
    [agent],
  );
  expect(rows).toHaveLength(30);
  const total = await countTasks(db, "status = 'rejected'");

  await page.goto("/tasks?status=rejected");
  await expect(page.getByRole("heading", { level: 2 })).toHaveText("Rejected tasks");
  const ids: string[] = [];
  for (let guard = 0; guard < 20; guard++) {
    const pageIds = await page
      .locator("tbody tr")
      .evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-task-id") ?? ""));
    expect(pageIds.length).toBeLessThanOrEqual(25);
    ids.push(...pageIds);
    const older = page.getByRole("link", { name: "Older tasks" });
    if ((await older.count()) === 0) break;
    await older.click();
    await expect(page.getByRole("link", { name: "Newest tasks" })).toBeVisible();
  }
  expect(ids).toHaveLength(total);
  expect(new Set(ids).size).toBe(total);
  for (const row of rows) expect(ids).toContain(row.id);

  const badges = page.locator("tbody tr").getByText("Rejected", { exact: true });
  await expect(badges.first()).toBeVisible();
});

test("the status filter form narrows the list", async ({ page }) => {
  await page.goto("/tasks");
  await page.getByLabel("Status").selectOption("queued");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/status=queued/);
  await expect(page.getByRole("heading", { level: 2 })).toHaveText("Queued tasks");
  const statuses = await page.locator("tbody tr").count();
  expect(statuses).toBeGreaterThan(0);
  await expect(page.locator("tbody tr").filter({ hasNotText: "Queued" })).toHaveCount(0);
});
