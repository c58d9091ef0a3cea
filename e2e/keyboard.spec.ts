// Keyboard shortcuts on the built app: j/k move through a list and Enter opens the row; x ticks
// dead letters and r opens the bulk reject confirmation with their count (acting on nothing);
// Esc closes it and then clears the selection; / goes to the search field, where a typed "j" is
// a letter; ? opens the help dialog, which keeps and returns focus.
import type { Page } from "@playwright/test";
import type pg from "pg";
import { asRole, expect, insertDeadTask, randomWord, test } from "./fixtures";

test.use(asRole("reviewer"));

/** Key presses before hydration go nowhere: wait for the shortcut listener. */
async function ready(page: Page) {
  await expect(page.getByTestId("keyboard-help-open")).toHaveAttribute("data-listening", "");
}

const selectedRows = (page: Page) => page.locator('main [data-kb-row][aria-current="true"]');

async function stageDead(db: pg.Pool, agent: string, n: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `insert into tasks (agent, input, status, dead_reason, attempts, last_error, created_by)
     select $1, jsonb_build_object('n', g), 'dead', 'non_retryable', 3,
            jsonb_build_object('message', 'keyboard ' || $1 || ' ' || g), 'e2e'
     from generate_series(1, $2) as g returning id`,
    [agent, n],
  );
  return rows.map((r) => r.id);
}

test("j and k move through the tasks list and Enter opens the selected task", async ({ page }) => {
  await page.goto("/tasks");
  await ready(page);
  const rows = page.locator("main tbody tr[data-kb-row]");
  expect(await rows.count()).toBeGreaterThan(1);
  const first = (await rows.nth(0).getAttribute("data-task-id")) ?? "";
  const second = (await rows.nth(1).getAttribute("data-task-id")) ?? "";

  await page.keyboard.press("j");
  await expect(selectedRows(page)).toHaveCount(1);
  await expect(selectedRows(page)).toHaveAttribute("data-task-id", first);
  // The row stays a link: focus is on it, so a screen reader reads the task link.
  await expect(rows.nth(0).getByRole("link")).toBeFocused();
  await page.keyboard.press("j");
  await expect(selectedRows(page)).toHaveAttribute("data-task-id", second);
  await page.keyboard.press("k");
  await expect(selectedRows(page)).toHaveAttribute("data-task-id", first);
  await page.keyboard.press("Escape");
  await expect(selectedRows(page)).toHaveCount(0);

  await page.keyboard.press("j");
  await page.keyboard.press("j");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/tasks/${second}$`));
  await expect(page.getByRole("heading", { level: 1 })).toContainText(second.slice(0, 8));
});

test("x ticks dead letters, r opens the bulk reject confirmation with their count, Esc closes it", async ({
  page,
  db,
}) => {
  const agent = `kb-${randomWord()}`;
  const ids = await stageDead(db, agent, 3);
  await page.goto(`/dead-letters?agent=${agent}`);
  await ready(page);
  await expect(page.getByTestId("dead-letters-matching")).toHaveText("3");

  // Nothing ticked yet: r says so instead of opening anything.
  await page.keyboard.press("r");
  await expect(page.getByTestId("keyboard-status")).toContainText("Nothing is ticked");
  await expect(page.getByRole("dialog")).toHaveCount(0);

  await page.keyboard.press("j");
  await page.keyboard.press("x");
  await page.keyboard.press("j");
  await page.keyboard.press("x");
  await expect(page.getByTestId("selected-count")).toHaveText("2 selected");
  const ticked = page.locator('main tbody input[type="checkbox"]:checked');
  await expect(ticked).toHaveCount(2);

  await page.keyboard.press("r");
  const dialog = page.getByRole("dialog", { name: "Reject 2 dead tasks" });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId("bulk-count")).toContainText("2 dead tasks");
  // Typing in the dialog's reason field is text, not shortcuts.
  await dialog.getByLabel("Reason (required)").fill("jkx");
  await expect(dialog.getByLabel("Reason (required)")).toHaveValue("jkx");
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  // The dialog only asked: every task is still dead.
  const { rows } = await db.query<{ n: number }>(
    "select count(*)::int as n from tasks where id = any($1::uuid[]) and status = 'dead'",
    [ids],
  );
  expect(rows[0]?.n).toBe(3);

  // x again unticks the selected row; Esc clears the selection.
  await page.keyboard.press("x");
  await expect(page.getByTestId("selected-count")).toHaveText("1 selected");
  await expect(selectedRows(page)).toHaveCount(1);
  await page.keyboard.press("Escape");
  await expect(selectedRows(page)).toHaveCount(0);
});

test("on a task page r opens the review panel's reject dialog, never rejecting by itself", async ({
  page,
  db,
}) => {
  const id = await insertDeadTask(db, "non_retryable", `keyboard task ${randomWord()}`);
  await page.goto(`/tasks/${id}`);
  await ready(page);
  await page.keyboard.press("r");
  const dialog = page.getByRole("dialog", { name: "Reject the dead task" });
  await expect(dialog).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await page.keyboard.press("a");
  await expect(page.getByRole("dialog", { name: "Resume the dead task" })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  const { rows } = await db.query<{ status: string }>("select status from tasks where id = $1", [
    id,
  ]);
  expect(rows[0]?.status).toBe("dead");
});

test("/ goes to the search field, where j is typed as a letter", async ({ page }) => {
  await page.goto("/ledger");
  await ready(page);
  await page.keyboard.press("/");
  const search = page.getByLabel("Search", { exact: true });
  await expect(search).toBeFocused();
  await expect(search).toHaveValue("");
  await page.keyboard.type("jk/x?");
  await expect(search).toHaveValue("jk/x?");
  await expect(selectedRows(page)).toHaveCount(0);
  await expect(page.getByRole("dialog")).toHaveCount(0);

  await page.goto("/dead-letters");
  await ready(page);
  await page.keyboard.press("/");
  await expect(page.getByLabel("Error group")).toBeFocused();
});

test("? opens the help dialog for this screen; Esc closes it and focus comes back", async ({
  page,
}) => {
  await page.goto("/dead-letters");
  await ready(page);
  await page.keyboard.press("?");
  const help = page.getByRole("dialog", { name: "Keyboard shortcuts on this screen" });
  await expect(help).toBeVisible();
  await expect(help.getByRole("row", { name: /^x Tick or untick/ })).toBeVisible();
  // Modal (the page behind is inert): focus moves inside.
  await expect(help.getByRole("button", { name: "Close" })).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(help).toHaveCount(0);

  // The hint below every page opens it too, and gets focus back when it closes.
  const hint = page.getByRole("button", { name: "Keyboard shortcuts (?)" });
  await hint.click();
  await expect(help).toBeVisible();
  await help.getByRole("button", { name: "Close" }).click();
  await expect(help).toHaveCount(0);
  await expect(hint).toBeFocused();

  // Another screen lists its own keys.
  await page.goto("/tasks");
  await ready(page);
  await page.keyboard.press("?");
  await expect(help.getByRole("row", { name: /^Enter Open the selected task/ })).toBeVisible();
  await expect(help.getByRole("row", { name: /^x / })).toHaveCount(0);
});
