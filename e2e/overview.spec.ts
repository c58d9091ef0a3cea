import { withTransaction } from "../db/client";
import { TASK_STATUSES } from "../lib/domain/task-states";
import { insertTask } from "../lib/server/commands/enqueue-task";
import { appendEntries, countTasks, expect, insertDeadTask, randomWord, test } from "./fixtures";

test("task counts match the database and follow it", async ({ page, db }) => {
  await page.goto("/");
  for (const status of TASK_STATUSES) {
    await expect(page.getByTestId(`tasks-${status}`), status).toHaveAttribute(
      "data-value",
      String(await countTasks(db, `status = '${status}'`)),
    );
  }
  const queuedBefore = Number(await page.getByTestId("tasks-queued").getAttribute("data-value"));
  const budgetBefore = Number(await page.getByTestId("dead-budget").getAttribute("data-value"));

  await withTransaction(db, (client) =>
    insertTask(client, { agent: "e2e-agent", input: { n: 1 }, actor: "e2e" }),
  );
  await insertDeadTask(db, "budget", "spent 1.2 of 1.0");

  await page.reload();
  await expect(page.getByTestId("tasks-queued")).toHaveAttribute(
    "data-value",
    String(queuedBefore + 1),
  );
  await expect(page.getByTestId("tasks-queued")).toHaveText(
    (queuedBefore + 1).toLocaleString("en-US"),
  );
  await expect(page.getByTestId("dead-budget")).toHaveAttribute(
    "data-value",
    String(budgetBefore + 1),
  );
  await expect(page.getByTestId("tasks-dead")).toHaveAttribute(
    "data-value",
    String(await countTasks(db, "status = 'dead'")),
  );
});

test("ledger totals and the latest entries come from the ledger", async ({ page, db }) => {
  const { rows } = await db.query<{ entries: number; streams: number }>(
    "select (select count(*)::int from ledger_entries) as entries, (select count(*)::int from ledger_streams) as streams",
  );
  const before = rows[0];
  await page.goto("/");
  await expect(page.getByTestId("ledger-entries")).toHaveAttribute(
    "data-value",
    String(before?.entries),
  );
  await expect(page.getByTestId("ledger-streams")).toHaveAttribute(
    "data-value",
    String(before?.streams),
  );

  // Actors come from API callers: a value that looks like markup must show as text, not run.
  const actor = `<img src=x onerror="window.__pwned=1">${randomWord(4)}`;
  const kind = `test.overview_${randomWord()}`;
  await appendEntries(db, `e2e:${randomWord()}`, [
    { kind, actor, data: { html: "<script>window.__pwned=2</script>" } },
  ]);

  await page.reload();
  await expect(page.getByTestId("ledger-entries")).toHaveAttribute(
    "data-value",
    String((before?.entries ?? 0) + 1),
  );
  await expect(page.getByTestId("ledger-streams")).toHaveAttribute(
    "data-value",
    String((before?.streams ?? 0) + 1),
  );
  const table = page.getByRole("table", { name: /most recent ledger entries/ });
  const newest = table.getByRole("row").nth(1);
  await expect(newest).toContainText(kind);
  await expect(newest).toContainText(actor);
  await expect(page.locator('img[src="x"]')).toHaveCount(0);
  expect(
    await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned),
  ).toBeUndefined();
});

test("dead letters are grouped by reason with their errors", async ({ page, db }) => {
  const message = `upstream said no ${randomWord()}`;
  await page.goto("/dead-letters");
  const before = Number(await page.getByTestId("dead-letters-timeout").getAttribute("data-value"));
  await insertDeadTask(db, "timeout", message);
  await insertDeadTask(db, "timeout", message);

  await page.reload();
  await expect(page.getByTestId("dead-letters-timeout")).toHaveAttribute(
    "data-value",
    String(before + 2),
  );
  const group = page.getByRole("region", { name: /Timed out/ });
  const row = group.getByRole("row").filter({ hasText: message });
  await expect(row).toHaveCount(1);
  await expect(row.getByRole("cell").nth(1)).toHaveText("2");
  await expect(group).toContainText("Oldest waiting");
});
