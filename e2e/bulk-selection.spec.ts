// The dead-letter list's selection is what the list shows: rows ticked under one filter are not
// carried into another (nor is "all N matching"), and a ticked row that the live read drops
// because another reviewer acted on it leaves the selection, so the confirmation counts and
// freezes only rows the reviewer can see ticked. The filter changes in place (a client-side
// navigation, checked: a reload would start afresh whatever the page did).
import type { Page } from "@playwright/test";
import { operator } from "../lib/domain/access";
import { rejectTask } from "../lib/server/commands/reject-task";
import { asRole, expect, randomWord, test } from "./fixtures";
import { stageDead } from "./staging";

test.use(asRole("reviewer"));

const tick = (page: Page, id: string) =>
  page.locator(`tr[data-task-id="${id}"]`).getByRole("checkbox").check();

/** Marks the document, so a later check can tell that no reload happened in between. */
const markDocument = (page: Page) =>
  page.evaluate(() => {
    document.documentElement.dataset.e2eSameDocument = "yes";
  });
const sameDocument = (page: Page) =>
  page.evaluate(() => document.documentElement.dataset.e2eSameDocument === "yes");

test("a filter change starts the selection afresh, 'all matching' included", async ({
  page,
  db,
}) => {
  const word = randomWord();
  const first = `e2e-pick-a-${word}`;
  const second = `e2e-pick-b-${word}`;
  const firsts = await stageDead(db, first, "smtp 550 mailbox unavailable", 3);
  const [other] = await stageDead(db, second, "smtp 421 try later", 2);

  await page.goto(`/dead-letters?agent=${first}`);
  await expect(page.getByTestId("dead-letters-matching")).toHaveText("3");
  for (const id of firsts) await tick(page, id);
  await expect(page.getByTestId("selected-count")).toHaveText("3 selected");
  await markDocument(page);

  const filter = page.getByRole("search", { name: "Filter dead letters" });
  await filter.getByLabel("Agent", { exact: true }).fill(second);
  await filter.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(new RegExp(`agent=${second}`));
  await expect(page.getByTestId("dead-letters-matching")).toHaveText("2");
  expect(await sameDocument(page)).toBe(true);
  await expect(page.getByTestId("selected-count")).toHaveText("0 selected");
  await expect(page.getByTestId("bulk-reject")).toBeDisabled();

  // One ticked here: the confirmation counts that one, not the three left behind.
  await tick(page, other ?? "");
  await expect(page.getByTestId("selected-count")).toHaveText("1 selected");
  await page.getByTestId("bulk-reject").click();
  await expect(page.getByTestId("bulk-count")).toHaveText(/^1 dead task, as of /);
  await expect(page.getByTestId("bulk-confirm")).toHaveText("Reject 1 task");
  await page.getByRole("button", { name: "Keep them" }).click();

  // "All 2 matching this filter" is this filter's: back to the first, nothing is selected.
  await page.getByTestId("select-all-matching").click();
  await expect(page.getByTestId("select-all-matching")).toHaveText("All 2 matching selected");
  await page.goBack();
  await expect(page.getByTestId("dead-letters-matching")).toHaveText("3");
  expect(await sameDocument(page)).toBe(true);
  await expect(page.getByTestId("select-all-matching")).toHaveAttribute("aria-pressed", "false");
  await expect(page.getByTestId("select-all-matching")).toHaveText(
    "Select all 3 matching this filter",
  );
  await expect(page.getByTestId("selected-count")).toHaveText("0 selected");
});

test("a ticked row another reviewer rejects leaves the selection and the frozen set", async ({
  page,
  db,
}) => {
  const agent = `e2e-pick-live-${randomWord()}`;
  const [taken, kept, unticked] = await stageDead(db, agent, "card declined", 3);
  await page.goto(`/dead-letters?agent=${agent}`);
  await expect(page.getByTestId("dead-letters-matching")).toHaveText("3");
  await tick(page, taken ?? "");
  await tick(page, kept ?? "");
  await expect(page.getByTestId("selected-count")).toHaveText("2 selected");

  const { rows } = await db.query<{ version: number }>("select version from tasks where id = $1", [
    taken,
  ]);
  expect(
    await rejectTask(db, operator("user:admin@example.com"), {
      taskId: taken ?? "",
      version: rows[0]?.version ?? 0,
      reason: "handled by the other reviewer",
    }),
  ).toMatchObject({ ok: true });
  // The live read drops it (polled every few seconds while the tab is visible).
  await expect(page.locator(`tr[data-task-id="${taken}"]`)).toHaveCount(0, { timeout: 20_000 });
  await expect(page.getByTestId("dead-letters-matching")).toHaveText("2");
  await expect(page.getByTestId("selected-count")).toHaveText("1 selected");

  await page.getByTestId("bulk-reject").click();
  await expect(page.getByTestId("bulk-count")).toHaveText(/^1 dead task, as of /);
  await page.getByLabel("Reason (required)").fill("duplicate of an order already refunded");
  await page.getByTestId("bulk-confirm").click();
  const progress = page.getByTestId("started-bulks").getByTestId("bulk-progress").first();
  await expect(progress.getByTestId("bulk-finished")).toContainText("1 of 1 have an outcome", {
    timeout: 30_000,
  });
  const bulkId = (await progress.getAttribute("data-bulk-id")) ?? "";
  const members = await db.query<{ task_id: string }>(
    "select task_id from bulk_action_members where bulk_id = $1",
    [bulkId],
  );
  expect(members.rows.map((m) => m.task_id)).toEqual([kept]);
  const statuses = await db.query<{ id: string; status: string }>(
    "select id, status from tasks where id = any($1::uuid[]) order by id",
    [[taken, kept, unticked]],
  );
  expect(Object.fromEntries(statuses.rows.map((r) => [r.id, r.status]))).toEqual({
    [taken ?? ""]: "rejected",
    [kept ?? ""]: "rejected",
    [unticked ?? ""]: "dead",
  });
});
