import { randomBytes } from "node:crypto";
import type { Page } from "@playwright/test";
import {
  appendEntries,
  E2E_APPROVAL_THRESHOLD_CENTS,
  enqueue,
  expect,
  insertDeadTask,
  randomWord,
  refundAgent,
  runTasks,
  test,
} from "./fixtures";

type Db = Parameters<typeof enqueue>[0];

async function ledgerKinds(db: Db, id: string): Promise<string[]> {
  const { rows } = await db.query<{ kind: string }>(
    "select kind from ledger_entries where stream = $1 order by seq",
    [`task:${id}`],
  );
  return rows.map((r) => r.kind);
}

async function effectsOf(db: Db, id: string) {
  const { rows } = await db.query<{
    key: string;
    fingerprint: string;
    result: { providerToken?: string } | null;
  }>("select key, fingerprint, result from effects where task_id = $1 order by step_seq", [id]);
  return rows;
}

async function timelineKinds(page: Page): Promise<string[]> {
  return page
    .getByRole("list", { name: "Ledger entries of this task, oldest first" })
    .locator(":scope > li[data-kind]")
    .evaluateAll((lis) => lis.map((li) => li.getAttribute("data-kind") ?? ""));
}

test("a succeeded task tells its story from the record, with sensitive results redacted", async ({
  page,
  db,
}) => {
  const agent = refundAgent(`e2e-refunds-${randomWord(6)}`);
  const orderId = `ord_${randomWord(6)}`;
  const id = await enqueue(db, agent.name, { orderId, amountCents: 2_500 });
  await runTasks([agent], [id], ["succeeded"]);
  const [effect] = await effectsOf(db, id);
  if (!effect) throw new Error("the runtime recorded no effect");
  // The effects table keeps the raw result: the screen must not show it.
  const secret = effect.result?.providerToken ?? "";
  expect(secret).toMatch(/^tok_/);

  const response = await page.goto(`/tasks/${id}`);
  expect(response?.status()).toBe(200);
  await expect(page).toHaveTitle(`Task ${id.slice(0, 8)} · Agent Ledger`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Task ${id.slice(0, 8)}`);
  await expect(page.getByTestId("task-id")).toHaveText(id);
  await expect(page.getByTestId("task-callout")).toContainText("Succeeded");
  const summary = page.getByRole("region", { name: "Summary", exact: true });
  await expect(summary).toContainText(agent.name);
  await expect(page.getByTestId("task-attempts")).toHaveText("1");

  await expect(page.getByRole("region", { name: "Input", exact: true })).toContainText(
    `"orderId": "${orderId}"`,
  );
  await expect(page.getByRole("region", { name: "Result", exact: true })).toContainText(
    `"re_${orderId}"`,
  );

  const steps = page.getByRole("table", { name: "Step journal, in call order" });
  await expect(steps.locator("tbody tr")).toHaveCount(2);
  await expect(steps.locator("tbody tr").nth(0)).toContainText("look-up-order");
  await expect(steps.locator("tbody tr").nth(1)).toContainText("issue_refund");

  const effects = page.getByRole("region", { name: "Effects", exact: true });
  const card = effects.locator(`[data-effect-key="${effect.key}"]`);
  await expect(card).toContainText("Succeeded");
  await expect(card).toContainText(effect.key);
  await expect(card).toContainText(effect.fingerprint);
  await expect(card).toContainText('"providerToken": "[redacted]"');

  // The step's effect key leads to the effect.
  await steps.locator("tbody tr").nth(1).getByRole("link").click();
  await expect(page).toHaveURL(new RegExp(`#effect-${effect.key}$`));

  expect(await timelineKinds(page)).toEqual(await ledgerKinds(db, id));
  const succeeded = page.locator('li[data-kind="effect.succeeded"]');
  await succeeded.getByText("Data", { exact: true }).click();
  await expect(succeeded.locator("pre")).toContainText('"providerToken": "[redacted]"');

  await expect(page.getByRole("region", { name: /Replay preview/ })).toHaveCount(0);
  expect(await page.content()).not.toContain(secret);
});

test("a dead task shows its error and which effects a replay would deduplicate", async ({
  page,
  db,
}) => {
  const agent = refundAgent(`e2e-refunds-${randomWord(6)}`);
  const id = await enqueue(
    db,
    agent.name,
    { orderId: `ord_${randomWord(6)}`, amountCents: 900, failAfterRefund: true },
    { maxAttempts: 2, backoffInitialMs: 10 },
  );
  await runTasks([agent], [id], ["dead"]);
  const [effect] = await effectsOf(db, id);
  if (!effect) throw new Error("the runtime recorded no effect");

  await page.goto(`/tasks/${id}`);
  const callout = page.getByTestId("task-callout");
  await expect(callout).toContainText("Dead: Retries exhausted");
  await expect(callout).toContainText("ledger export failed after the refund");
  await expect(page.getByTestId("task-attempts")).toHaveText("2");
  await expect(page.getByRole("region", { name: "Last error", exact: true })).toContainText(
    "ledger export failed after the refund",
  );

  const replay = page.getByRole("region", { name: "Replay preview from step 1" });
  await expect(replay.getByTestId("replay-rerun")).toHaveAttribute("data-value", "2");
  await expect(replay.getByTestId("replay-dedupe")).toHaveAttribute("data-value", "1");
  await expect(replay.getByTestId("replay-act")).toHaveAttribute("data-value", "0");
  const row = replay.locator(`tr[data-replay-key="${effect.key}"]`);
  await expect(row).toContainText("Deduplicated");
  await expect(row).toContainText("issue_refund");

  const kinds = await timelineKinds(page);
  expect(kinds).toEqual(await ledgerKinds(db, id));
  expect(kinds.at(-1)).toBe("task.dead_lettered");
  expect(kinds.filter((k) => k === "attempt.failed")).toHaveLength(2);
});

test("a task awaiting approval shows the exact request and that a replay would set it aside", async ({
  page,
  db,
}) => {
  const agent = refundAgent(`e2e-refunds-${randomWord(6)}`);
  const amountCents = E2E_APPROVAL_THRESHOLD_CENTS + 37_000;
  const id = await enqueue(db, agent.name, { orderId: `ord_${randomWord(6)}`, amountCents });
  await runTasks([agent], [id], ["awaiting_approval"]);
  const { rows } = await db.query<{ fingerprint: string }>(
    "select fingerprint from approvals where task_id = $1",
    [id],
  );

  await page.goto(`/tasks/${id}`);
  await expect(page.getByTestId("task-callout")).toContainText("Waiting for a person's approval");
  const approvals = page.getByRole("region", { name: "Approvals", exact: true });
  const request = approvals.locator("tbody tr");
  await expect(request).toHaveCount(1);
  await expect(request).toContainText("Pending");
  await expect(request).toContainText(`"amountCents":${amountCents}`);
  await expect(request.locator(`[title="${rows[0]?.fingerprint}"]`)).toHaveCount(1);
  await expect(page.getByRole("region", { name: "Effects", exact: true })).toContainText(
    "No side effects",
  );
  const replay = page.getByRole("region", { name: "Replay preview from step 1" });
  await expect(replay).toContainText("The pending approval would be set aside");
  await approvals.getByRole("link", { name: "All pending approvals" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Approvals");
});

test("task ids link to the task from the tasks list and the ledger", async ({ page, db }) => {
  const id = await insertDeadTask(db, "non_retryable", `bad input ${randomWord()}`);
  await page.goto("/tasks?status=dead");
  await page
    .locator(`tr[data-task-id="${id}"]`)
    .getByRole("link", { name: id.slice(0, 8) })
    .click();
  await expect(page).toHaveURL(new RegExp(`/tasks/${id}$`));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Task ${id.slice(0, 8)}`);
  await expect(page.getByTestId("task-callout")).toContainText("Dead: Non-retryable error");
  await expect(
    page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Tasks" }),
  ).toHaveAttribute("aria-current", "page");

  const taskId = await enqueue(db, `e2e-idle-${randomWord(6)}`, { n: 1 });
  await page.goto("/ledger?kind=task.enqueued");
  await page.getByRole("link", { name: `task:${taskId}` }).click();
  await expect(page).toHaveURL(new RegExp(`/tasks/${taskId}$`));
  await expect(page.getByTestId("task-callout")).toContainText("Queued");
});

test("values that look like markup are shown as text, and an unknown outcome is flagged", async ({
  page,
  db,
}) => {
  // No double quotes: JSON would show them escaped, and the text to find would differ.
  const payload = `<img src=x onerror='window.__pwned=1'>${randomWord(4)}`;
  const id = await enqueue(db, `e2e-idle-${randomWord(6)}`, { note: payload });
  const key = randomBytes(32).toString("hex");
  // A worker that claimed the effect and vanished: started, lease run out, no result.
  await db.query(
    `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status, lease_owner, lease_expires_at)
     values ($1, $2, 1, 'send_email', '{}', $3, $1, 'started', 'w-gone', now() - interval '5 minutes')`,
    [key, id, JSON.stringify({ body: payload })],
  );
  await db.query(
    "update tasks set status = 'dead', dead_reason = 'outcome_unknown', last_error = $2 where id = $1",
    [id, JSON.stringify({ message: payload })],
  );

  await page.goto(`/tasks/${id}`);
  await expect(page.getByRole("region", { name: "Input", exact: true })).toContainText(payload);
  await expect(page.getByTestId("task-callout")).toContainText(payload);
  const effect = page.locator(`[data-effect-key="${key}"]`);
  await expect(effect).toContainText("Outcome unknown");
  await expect(effect).toContainText(payload);
  const replay = page.getByRole("region", { name: "Replay preview from step 1" });
  await expect(replay.getByTestId("replay-unknown")).toHaveAttribute("data-value", "1");
  await page.locator('li[data-kind="task.enqueued"]').getByText("Data", { exact: true }).click();
  await expect(page.locator('li[data-kind="task.enqueued"] pre')).toContainText(payload);
  await expect(page.locator('img[src="x"]')).toHaveCount(0);
  expect(
    await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned),
  ).toBeUndefined();
});

test("an address that is not a task id is explained", async ({ page }) => {
  for (const bad of [
    "not-a-uuid",
    "12345",
    "0b6f1f0e-6a43-4d6b-9e83-1f2b3c4d5e6",
    "%3Cimg%20src%3Dx%3E",
  ]) {
    const response = await page.goto(`/tasks/${bad}`);
    expect(response?.status(), bad).toBe(200);
    const alert = page.getByRole("main").getByRole("alert");
    await expect(alert).toContainText("This address does not name a task.");
    await expect(alert).toContainText("Task ids are UUIDs");
    await expect(page.locator('img[src="x"]')).toHaveCount(0);
  }
});

test("an unknown task id shows the not-found page inside the dashboard", async ({ page }) => {
  // The dashboard's loading boundary streams the shell before the page can answer, so the
  // status stays 200; the page says so and tells crawlers not to index it.
  await page.goto("/tasks/0b6f1f0e-6a43-4d6b-9e83-1f2b3c4d5e6f");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("No such task");
  await expect(page.getByText("There is no task with this id.")).toBeVisible();
  await expect(page.locator('meta[name="robots"][content="noindex"]')).not.toHaveCount(0);
  await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
});

test("an upper-case task id finds the task", async ({ page, db }) => {
  const id = await insertDeadTask(db, "timeout", "took too long");
  await page.goto(`/tasks/${id.toUpperCase()}`);
  await expect(page.getByTestId("task-id")).toHaveText(id);
});

test("on a phone the task page does not scroll sideways", async ({ page, db }) => {
  const agent = refundAgent(`e2e-refunds-${randomWord(6)}`);
  const id = await enqueue(
    db,
    agent.name,
    { orderId: `ord_${randomWord(6)}`, amountCents: 900, failAfterRefund: true },
    { maxAttempts: 1 },
  );
  await runTasks([agent], [id], ["dead"]);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/tasks/${id}`);
  await expect(page.getByRole("region", { name: "Ledger", exact: true })).toBeVisible();
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
});

test("a long history shows its beginning and latest end, and reads the rest in windows", async ({
  page,
  db,
}) => {
  const id = await enqueue(db, `e2e-idle-${randomWord(6)}`, { n: 1 });
  const kind = `test.note_${randomWord()}`;
  await appendEntries(
    db,
    `task:${id}`,
    Array.from({ length: 150 }, (_, i) => ({ kind, actor: "e2e", data: { i } })),
  );
  // Seven page loads: more than the default 30 s when the machine is busy.
  test.setTimeout(90_000);
  // 151 entries: the first 25 and the last 75 show, #26 to #76 are read in windows of 100.
  const seqs = () =>
    page
      .getByRole("list", { name: "Ledger entries of this task, oldest first" })
      .locator(":scope > li[data-kind]")
      .evaluateAll((lis) => lis.map((li) => Number(li.getAttribute("data-seq"))));
  const range = (from: number, to: number) =>
    Array.from({ length: to - from + 1 }, (_, i) => from + i);

  await page.goto(`/tasks/${id}`);
  await expect(page.getByRole("link", { name: "Ledger (151)" })).toBeVisible();
  expect(await seqs()).toEqual([...range(1, 25), ...range(77, 151)]);
  const gap = page.locator("li[data-gap]");
  await expect(gap).toContainText("51 entries (#26 to #76) not shown here.");

  await gap.getByRole("link", { name: "Read them" }).click();
  await expect(page).toHaveURL(new RegExp(`/tasks/${id}\\?from=26#ledger$`));
  const pager = page.getByRole("navigation", { name: "Ledger entries of this task" });
  await expect(pager).toContainText("Entries #26 to #125 of 151.");
  expect(await seqs()).toEqual(range(26, 125));
  await expect(page.locator("li[data-gap]")).toHaveCount(0);
  await pager.getByRole("link", { name: "Later entries" }).click();
  await expect(pager).toContainText("Entries #126 to #151 of 151.");
  await expect(pager.getByRole("link", { name: "Later entries" })).toHaveCount(0);
  await pager.getByRole("link", { name: "Earlier entries" }).click();
  await expect(pager).toContainText("Entries #26 to #125");
  await pager.getByRole("link", { name: "Earlier entries" }).click();
  await expect(pager).toContainText("Entries #1 to #100");
  await expect(pager.getByRole("link", { name: "Earlier entries" })).toHaveCount(0);
  await pager.getByRole("link", { name: "Whole story" }).click();
  await expect(page.locator("li[data-gap]")).toBeVisible();

  const response = await page.goto(`/tasks/${id}?from=abc`);
  expect(response?.status()).toBe(200);
  const alert = page.getByRole("main").getByRole("alert");
  await expect(alert).toContainText("This task address is not valid.");
  await expect(alert).toContainText('"from"');
});
