import { withTransaction } from "../db/client";
import { TASK_STATUSES } from "../lib/domain/task-states";
import { insertTask } from "../lib/server/commands/enqueue-task";
import { appendEntries, countTasks, expect, insertDeadTask, randomWord, test } from "./fixtures";

/** "1,234 waiting" → 1234. */
function number(text: string | null): number {
  const digits = (text ?? "").replace(/\D/g, "");
  if (digits === "") throw new Error(`no number in ${JSON.stringify(text)}`);
  return Number(digits);
}

/** The rows of a chart's "Show the numbers" table (one per interval). */
function chartRows(page: import("@playwright/test").Page, testId: string) {
  // CSS, not roles: the table sits in a closed <details> until someone opens it.
  return page.getByTestId(testId).locator("table tbody tr");
}

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
  // Entries recorded since the start: the kind counters each append keeps in its transaction
  // (a detached month's entries stay counted; the archived-task spec removes some behind them,
  // as a detach does, so counting the rows left would not be this figure).
  const { rows } = await db.query<{ entries: number; streams: number }>(
    "select (select coalesce(sum(entries), 0)::int from ledger_kind_counts) as entries, (select count(*)::int from ledger_streams) as streams",
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

test("the charts show what the ledger recorded in the window, as pictures and as numbers", async ({
  page,
  db,
}) => {
  // The demo database has no worker: stage outcomes the way the worker records them.
  const stream = `e2e:${randomWord()}`;
  await appendEntries(db, stream, [
    { kind: "task.succeeded", actor: "worker:e2e" },
    { kind: "task.succeeded", actor: "worker:e2e" },
    { kind: "task.dead_lettered", actor: "worker:e2e" },
    { kind: "effect.deduplicated", actor: "worker:e2e" },
  ]);
  await page.goto("/");
  const outcomes = page.getByTestId("chart-outcomes");
  await expect(
    outcomes.getByRole("img", { name: /Tasks succeeded and dead-lettered/ }),
  ).toBeVisible();
  for (const id of ["chart-failed", "chart-success-rate", "chart-deduplicated"]) {
    await expect(page.getByTestId(id).getByRole("img")).toBeVisible();
  }
  // Default window: the last 24 hours, by the hour.
  await expect(page.getByRole("link", { name: "Last 24 hours" })).toHaveAttribute(
    "aria-current",
    "page",
  );
  await expect(chartRows(page, "chart-outcomes")).toHaveCount(24);
  const succeeded = number(await page.getByTestId("total-succeeded").textContent());
  expect(succeeded).toBeGreaterThanOrEqual(2);
  await page.screenshot({ path: "docs/screenshots/overview.png", fullPage: true });
  // The numbers table holds the same counts as the picture: the current hour has ours.
  await outcomes.getByText("Show the numbers").click();
  const lastHour = chartRows(page, "chart-outcomes").last();
  const cells = lastHour.locator("td");
  expect(number(await cells.nth(0).textContent())).toBeGreaterThanOrEqual(2);
  expect(number(await cells.nth(1).textContent())).toBeGreaterThanOrEqual(1);
  await expect(page.getByTestId("chart-success-rate").getByRole("img")).toHaveAccessibleName(
    /Success rate/,
  );
});

test("the chart window is in the address: links switch it, back restores it", async ({ page }) => {
  await page.goto("/?window=1h");
  await expect(page.getByRole("link", { name: "Last hour" })).toHaveAttribute(
    "aria-current",
    "page",
  );
  await expect(chartRows(page, "chart-outcomes")).toHaveCount(12);

  await page
    .getByRole("navigation", { name: "Chart window" })
    .getByRole("link", { name: "Last 7 days" })
    .click();
  await expect(page).toHaveURL(/\?window=7d$/);
  await expect(chartRows(page, "chart-outcomes")).toHaveCount(28);
  await page.getByRole("link", { name: "Last 30 days" }).click();
  await expect(page).toHaveURL(/\?window=30d$/);
  await expect(chartRows(page, "chart-outcomes")).toHaveCount(30);

  await page.goBack();
  await expect(page.getByRole("link", { name: "Last 7 days" })).toHaveAttribute(
    "aria-current",
    "page",
  );
  await expect(chartRows(page, "chart-outcomes")).toHaveCount(28);
});

test("a chart window the overview does not offer is explained, not a server error", async ({
  page,
}) => {
  await page.goto("/?window=2y");
  await expect(page.getByText("This overview address is not valid.")).toBeVisible();
  await expect(page.getByText(/"window" must be one of: 1h, 24h, 7d, 30d/)).toBeVisible();
});

test("a page left open follows the database: the oldest dead letter and its count update by themselves", async ({
  page,
  db,
}) => {
  await page.goto("/");
  const count = page.getByTestId("waiting-dead_letter-count");
  const before = number(await count.textContent());
  await expect(page.getByTestId("live-status").first()).toContainText("Live");
  await insertDeadTask(db, "exhausted", `gave up ${randomWord()}`);
  // No reload: the live query re-reads the overview every few seconds (other specs may add
  // dead letters too, hence "more than before").
  await expect
    .poll(async () => number(await count.textContent()), { timeout: 15_000 })
    .toBeGreaterThan(before);
  await expect(page).toHaveURL(/\/$/);
  // The oldest dead letter links to its task page.
  const oldest = page.getByTestId("waiting-dead_letter").getByRole("link", { name: /·/ });
  await expect(oldest).toHaveAttribute("href", /^\/tasks\/[0-9a-f-]{36}$/);
});
