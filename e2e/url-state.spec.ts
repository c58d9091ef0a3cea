// Filters live in the address: set one, set another, go back, and both the rows and the form's
// fields show the earlier filter (React reuses the form across the two renders, so a field
// filled from defaultValue would keep the later text unless the form follows the address);
// forward restores the later one. The live list re-reads the address it shows, not the last one.
import type { Page } from "@playwright/test";
import type pg from "pg";
import { asRole, expect, randomWord, test } from "./fixtures";

test.use(asRole("reviewer"));

const rowIds = (page: Page) =>
  page
    .locator("main tbody tr[data-task-id]")
    .evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-task-id") ?? "").sort());

async function stageDead(db: pg.Pool, agent: string, n: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `insert into tasks (agent, input, status, dead_reason, attempts, last_error, created_by)
     select $1, jsonb_build_object('n', g), 'dead', 'timeout', 2,
            jsonb_build_object('message', 'url state ' || $1), 'e2e'
     from generate_series(1, $2) as g returning id`,
    [agent, n],
  );
  return rows.map((r) => r.id).sort();
}

test("dead letters: back and forward restore the list and every filter field", async ({
  page,
  db,
}) => {
  const first = `url-${randomWord()}`;
  const second = `url-${randomWord()}`;
  const firstIds = await stageDead(db, first, 2);
  const secondIds = await stageDead(db, second, 3);
  const agentField = page.getByLabel("Agent");

  await page.goto("/dead-letters");
  await page.getByLabel("Reason").selectOption("timeout");
  await agentField.fill(first);
  await page.getByRole("button", { name: "Filter", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`agent=${first}`));
  await expect.poll(() => rowIds(page)).toEqual(firstIds);

  await page.getByLabel("Reason").selectOption("");
  await agentField.fill(second);
  await page.getByRole("button", { name: "Filter", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`agent=${second}`));
  await expect.poll(() => rowIds(page)).toEqual(secondIds);

  // Back: the live list re-reads the earlier filter, not the one it showed last.
  const reread = page.waitForResponse(
    (r) =>
      new URL(r.url()).pathname === "/api/screens/dead-letters" &&
      new URL(r.url()).searchParams.get("agent") === first,
  );
  await page.goBack();
  await expect(page).toHaveURL(new RegExp(`agent=${first}`));
  await expect(agentField).toHaveValue(first);
  await expect(page.getByLabel("Reason")).toHaveValue("timeout");
  await expect.poll(() => rowIds(page)).toEqual(firstIds);
  await reread;
  await expect.poll(() => rowIds(page)).toEqual(firstIds);

  await page.goForward();
  await expect(page).toHaveURL(new RegExp(`agent=${second}`));
  await expect(agentField).toHaveValue(second);
  await expect(page.getByLabel("Reason")).toHaveValue("");
  await expect.poll(() => rowIds(page)).toEqual(secondIds);

  // The address alone is the filter: opened fresh, it shows the same list and fields.
  await page.goto(page.url());
  await expect(agentField).toHaveValue(second);
  await expect.poll(() => rowIds(page)).toEqual(secondIds);
});

test("tasks: back and forward restore the status filter and its list", async ({ page }) => {
  const status = page.getByLabel("Status");
  const heading = page.locator("#tasks-results");
  await page.goto("/tasks");
  await status.selectOption("dead");
  await page.getByRole("button", { name: "Filter", exact: true }).click();
  await expect(page).toHaveURL(/status=dead/);
  await expect(heading).toHaveText("Dead tasks");
  await status.selectOption("rejected");
  await page.getByRole("button", { name: "Filter", exact: true }).click();
  await expect(page).toHaveURL(/status=rejected/);
  await expect(heading).toHaveText("Rejected tasks");

  await page.goBack();
  await expect(page).toHaveURL(/status=dead/);
  await expect(heading).toHaveText("Dead tasks");
  await expect(status).toHaveValue("dead");
  await expect(page.locator("main tbody tr").filter({ hasNotText: "Dead" })).toHaveCount(0);

  await page.goForward();
  await expect(page).toHaveURL(/status=rejected/);
  await expect(status).toHaveValue("rejected");
  await expect(heading).toHaveText("Rejected tasks");
});

test("ledger: back and forward restore the search fields, not only the rows", async ({ page }) => {
  const kind = page.getByLabel("Kind");
  const kinds = () =>
    page
      .locator('main tr[data-testid="ledger-row"] td:nth-child(3)')
      .evaluateAll((tds) => [...new Set(tds.map((td) => td.textContent ?? ""))]);
  await page.goto("/ledger");
  await kind.fill("task.enqueued");
  await page.getByRole("button", { name: "Filter", exact: true }).click();
  await expect(page).toHaveURL(/kind=task\.enqueued/);
  await expect.poll(kinds).toEqual(["task.enqueued"]);
  await kind.fill("");
  await page.getByLabel("Search", { exact: true }).fill("nobody-at-all@example.invalid");
  await page.getByRole("button", { name: "Filter", exact: true }).click();
  await expect(page).toHaveURL(/q=nobody/);
  await expect(page.getByText("No entries match")).toBeVisible();

  await page.goBack();
  await expect(page).toHaveURL(/kind=task\.enqueued/);
  await expect(kind).toHaveValue("task.enqueued");
  await expect(page.getByLabel("Search", { exact: true })).toHaveValue("");
  await expect.poll(kinds).toEqual(["task.enqueued"]);

  await page.goForward();
  await expect(page.getByLabel("Search", { exact: true })).toHaveValue(
    "nobody-at-all@example.invalid",
  );
  await expect(kind).toHaveValue("");
});

test("inbox: back and forward restore the kind filter and its items", async ({ page, db }) => {
  await stageDead(db, `url-${randomWord()}`, 1);
  const filters = page.getByRole("navigation", { name: "Inbox filters" });
  const deadLetters = filters.getByRole("link", { name: /^Dead letters/ });
  const everything = filters.getByRole("link", { name: /^Everything/ });
  await page.goto("/inbox");
  await deadLetters.click();
  await expect(page).toHaveURL(/kind=dead_letter/);
  await expect(deadLetters).toHaveAttribute("aria-current", "page");
  await everything.click();
  await expect(page).toHaveURL(/\/inbox$/);
  await expect(everything).toHaveAttribute("aria-current", "page");

  await page.goBack();
  await expect(page).toHaveURL(/kind=dead_letter/);
  await expect(deadLetters).toHaveAttribute("aria-current", "page");
  await expect(page.getByTestId("inbox-item").first()).toBeVisible();
  await expect(
    page.locator('[data-testid="inbox-item"]:not([data-kind="dead_letter"])'),
  ).toHaveCount(0);
  await page.goForward();
  await expect(everything).toHaveAttribute("aria-current", "page");
});

test("why: back restores the earlier lookup in the form", async ({ page }) => {
  const value = page.getByLabel("Value", { exact: true });
  await page.goto("/why");
  await value.fill("first@example.com");
  await page.getByRole("button", { name: "Explain" }).click();
  await expect(page).toHaveURL(/\/why\?recipient=first%40example\.com$/);
  await value.fill("");
  await page.getByLabel("Look up by").selectOption("refundId");
  await value.fill("re_second");
  await page.getByRole("button", { name: "Explain" }).click();
  await expect(page).toHaveURL(/\/why\?refundId=re_second$/);

  await page.goBack();
  await expect(page).toHaveURL(/\/why\?recipient=first%40example\.com$/);
  await expect(value).toHaveValue("first@example.com");
  await expect(page.getByLabel("Look up by")).toHaveValue("recipient");
  await page.goForward();
  await expect(value).toHaveValue("re_second");
  await expect(page.getByLabel("Look up by")).toHaveValue("refundId");
});
