// Keyboard shortcuts on the built app: j/k move through a list and Enter opens the row; x ticks
// dead letters and r opens the bulk reject confirmation with their count (acting on nothing);
// Esc closes it and then clears the selection; on the overview j/k walk the oldest waiting
// items; on /approvals a/r open the selected request's own dialogs; / goes to the search field,
// where a typed "j" is a letter; ? opens the help dialog, which keeps and returns focus.
import type { Page } from "@playwright/test";
import { operator } from "../lib/domain/access";
import { rejectTask } from "../lib/server/commands/reject-task";
import {
  asRole,
  E2E_APPROVAL_THRESHOLD_CENTS,
  enqueue,
  expect,
  insertDeadTask,
  randomWord,
  refundAgent,
  runTasks,
  test,
} from "./fixtures";
import { stageDead } from "./staging";

test.use(asRole("reviewer"));

/** Key presses before hydration go nowhere: wait for the shortcut listener. */
async function ready(page: Page) {
  await expect(page.getByTestId("keyboard-help-open")).toHaveAttribute("data-listening", "");
}

const selectedRows = (page: Page) => page.locator('main [data-kb-row][aria-current="true"]');

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
  const ids = await stageDead(db, agent, "keyboard", 3);
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

test.describe("the overview and the approvals screen", () => {
  // Two refunds parked for approval, made the oldest requests (the approvals screen lists the
  // oldest first, the overview its oldest), and rejected afterwards so later specs' oldest
  // requests are their own.
  let parked: [string, string] | undefined;
  const requests = (): [string, string] => {
    if (!parked) throw new Error("beforeAll parked no requests");
    return parked;
  };

  test.beforeAll(async ({ db }) => {
    const agent = refundAgent(`e2e-kb-${randomWord(6)}`);
    const ids = await Promise.all(
      [1, 2].map(() =>
        enqueue(db, agent.name, {
          orderId: `ord_${randomWord(6)}`,
          amountCents: E2E_APPROVAL_THRESHOLD_CENTS + 1_000,
        }),
      ),
    );
    const [first, second] = ids;
    if (!first || !second) throw new Error("enqueue returned no ids");
    await runTasks([agent], ids, ["awaiting_approval"]);
    await db.query(
      `update approvals set requested_at = now() - interval '3650 days' + (case when task_id = $1 then interval '0' else interval '1 minute' end)
        where task_id = any($2::uuid[]) and status = 'pending'`,
      [first, ids],
    );
    parked = [first, second];
  });

  test.afterAll(async ({ db }) => {
    for (const taskId of parked ?? []) {
      const { rows } = await db.query<{ version: number }>(
        "select version from tasks where id = $1",
        [taskId],
      );
      const version = rows[0]?.version;
      if (version === undefined) continue;
      await rejectTask(db, operator("e2e-keyboard"), {
        taskId,
        version,
        reason: "keyboard spec clean-up",
      });
    }
  });

  test("on the overview j and k walk the oldest waiting items, not the ledger rows, and Enter opens one", async ({
    page,
    db,
  }) => {
    // A dead letter and an approval wait, so the list has at least two items.
    await insertDeadTask(db, "non_retryable", `keyboard overview ${randomWord()}`);
    await page.goto("/");
    await ready(page);
    const waiting = page.locator('main [data-kb-list="waiting"] [data-kb-row]');
    const n = await waiting.count();
    expect(n).toBeGreaterThan(1);
    // The overview's latest ledger rows are keyboard rows on /ledger; here j must not reach them.
    await expect(page.getByTestId("ledger-row").first()).toBeVisible();

    await page.keyboard.press("j");
    await expect(selectedRows(page)).toHaveCount(1);
    const dead = page.getByTestId("waiting-dead_letter");
    await expect(dead).toHaveAttribute("aria-current", "true");
    // Focus is on the oldest item's link (Enter follows it), not on the list's own link.
    await expect(dead.getByRole("link", { name: /·/ })).toBeFocused();
    await page.keyboard.press("j");
    const approval = page.getByTestId("waiting-approval");
    await expect(approval).toHaveAttribute("aria-current", "true");
    const oldest = approval.getByRole("link", { name: /·/ });
    await expect(oldest).toHaveAttribute("href", `/tasks/${requests()[0]}`);

    // Past the last waiting item j holds there, never stepping into the ledger table.
    for (let i = 0; i < n + 1; i++) await page.keyboard.press("j");
    await expect(selectedRows(page)).toHaveCount(1);
    await expect(waiting.last()).toHaveAttribute("aria-current", "true");
    await expect(page.locator('[data-testid="ledger-row"][aria-current]')).toHaveCount(0);

    await page.keyboard.press("Escape");
    await expect(selectedRows(page)).toHaveCount(0);
    await page.keyboard.press("j");
    await page.keyboard.press("j");
    await expect(oldest).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(new RegExp(`/tasks/${requests()[0]}$`));
  });

  test("on /approvals j and k select a request, a and r open that request's own dialogs, Enter opens its task", async ({
    page,
    db,
  }) => {
    const [first, second] = requests();
    await page.goto("/approvals");
    await ready(page);
    const rows = page.locator("main li[data-kb-row]");
    await expect(rows.nth(0)).toHaveAttribute("data-task-id", first);
    await expect(rows.nth(1)).toHaveAttribute("data-task-id", second);

    // Nothing selected: a says so rather than opening the first request's dialog.
    await page.keyboard.press("a");
    await expect(page.getByTestId("keyboard-status")).toContainText("Select a request");
    await expect(page.getByRole("dialog")).toHaveCount(0);

    await page.keyboard.press("j");
    await expect(selectedRows(page)).toHaveAttribute("data-task-id", first);
    await expect(rows.nth(0).getByRole("link", { name: first.slice(0, 8) })).toBeFocused();
    await page.keyboard.press("j");
    await expect(selectedRows(page)).toHaveAttribute("data-task-id", second);

    // a opens the second request's approve dialog, not the first one's.
    await page.keyboard.press("a");
    await expect(page.getByRole("dialog")).toHaveCount(1);
    await expect(rows.nth(1).getByRole("dialog", { name: "Approve issue_refund" })).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await page.keyboard.press("r");
    await expect(page.getByRole("dialog")).toHaveCount(1);
    await expect(rows.nth(1).getByRole("dialog", { name: "Reject issue_refund" })).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(page.getByRole("dialog")).toHaveCount(0);
    // The dialogs only asked: both requests still wait.
    const { rows: waiting } = await db.query<{ n: number }>(
      "select count(*)::int as n from tasks where id = any($1::uuid[]) and status = 'awaiting_approval'",
      [[first, second]],
    );
    expect(waiting[0]?.n).toBe(2);

    await page.keyboard.press("k");
    await expect(selectedRows(page)).toHaveAttribute("data-task-id", first);
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(new RegExp(`/tasks/${first}$`));
  });
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
