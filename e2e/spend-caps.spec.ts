// The policies screen's daily spend budgets: an agent's spend today beside its budget, an admin
// setting a budget (the form refusing a zero), adding a per-key budget and the dead-letter
// policy, then clearing it, each seen before → after in the history and in the ledger; and an
// alert rule on a day's spend added on the alerts screen.
import { expect, publishLoneTool, randomWord, test } from "./fixtures";

test("an admin sets an agent's daily budget, sees today's spend against it and the history, then clears it", async ({
  page,
  db,
}) => {
  // An agent of its own: a budget on the demo's agents would stop the specs that run them.
  const agent = `e2e-budget-${randomWord(6)}`;
  await publishLoneTool(db, agent, `e2e_budget_tool_${randomWord(6)}`, { by: "e2e-spend-caps" });
  await db.query(
    `insert into spend_daily (day, agent, model, backend, calls, cost)
     values ((now() at time zone 'UTC')::date, $1, 'e2e-model', 1, 3, 1.25)`,
    [agent],
  );
  try {
    await page.goto("/settings/retry-policies");
    const budgets = page.getByRole("region", { name: "Daily spend budgets" });
    const row = budgets.locator(`tr[data-agent="${agent}"]`);
    await expect(row.locator('[data-cell="budget"]')).toHaveText("No budget");
    await expect(row.locator('[data-cell="spent"]')).toHaveText("$1.25");

    await row.getByRole("button", { name: `Set ${agent}'s budget…` }).click();
    const dialog = page.getByRole("dialog", { name: `Daily budget: ${agent}` });
    await dialog.getByLabel(/Agent's budget/).fill("0");
    await dialog.getByRole("button", { name: "Save budget" }).click();
    await expect(dialog).toContainText("must be more than 0");
    await dialog.getByLabel(/Agent's budget/).fill("1");
    await dialog.getByRole("button", { name: "Save budget" }).click();
    await expect(budgets.getByTestId("review-status")).toContainText(
      `Saved the daily budget of ${agent} (version 1)`,
    );
    await expect(row.locator('[data-cell="budget"]')).toHaveText("$1.00 a day, then wait");
    await expect(row.locator('[data-cell="spent"]')).toHaveText("$1.25 (budget spent)");

    const latest = page
      .getByRole("region", { name: "Change history" })
      .getByRole("list", { name: "Policy changes, newest first" })
      .locator(":scope > li")
      .first();
    await expect(latest).toContainText(`budget:${agent}`);
    await expect(latest.locator('[data-side="before"]')).toHaveText("No budget");
    await expect(latest.locator('[data-side="after"]')).toHaveText("$1.00 a day, then wait");

    await row.getByRole("button", { name: `Edit ${agent}'s budget…` }).click();
    const edit = page.getByRole("dialog", { name: `Daily budget: ${agent}` });
    await edit.getByLabel(/Agent's budget/).fill("2.5");
    await edit.getByLabel(/Input key/).fill("customer.id");
    await edit.getByLabel(/Budget per key/).fill("0.5");
    await edit.getByLabel("Over the budget").selectOption("dead");
    await edit.getByRole("button", { name: "Save budget" }).click();
    await expect(budgets.getByTestId("review-status")).toContainText(
      `Saved the daily budget of ${agent} (version 2)`,
    );
    await expect(row.locator('[data-cell="budget"]')).toHaveText(
      "$2.50 a day, $0.50 per customer.id, then dead-letter",
    );

    await row.getByRole("button", { name: `Edit ${agent}'s budget…` }).click();
    const clear = page.getByRole("dialog", { name: `Daily budget: ${agent}` });
    await clear.getByLabel(/Agent's budget/).fill("");
    await clear.getByLabel(/Input key/).fill("");
    await clear.getByLabel(/Budget per key/).fill("");
    await clear.getByRole("button", { name: "Save budget" }).click();
    await expect(budgets.getByTestId("review-status")).toContainText(
      `Cleared the daily budget of ${agent}`,
    );
    await expect(row.locator('[data-cell="budget"]')).toHaveText("No budget");

    const recorded = await db.query<{ actor: string; data: unknown }>(
      `select actor, data from ledger_entries where kind = 'policy.changed' and data->>'scope' = $1 order by id`,
      [`budget:${agent}`],
    );
    expect(recorded.rows.map((r) => r.actor)).toEqual(Array(3).fill("user:admin@example.com"));
    const one = { dailyLimit: 1, keyPath: null, keyDailyLimit: null, onExceed: "wait" };
    const two = { dailyLimit: 2.5, keyPath: "customer.id", keyDailyLimit: 0.5, onExceed: "dead" };
    expect(recorded.rows.map((r) => r.data)).toEqual([
      { scope: `budget:${agent}`, before: null, after: one, woken: 0 },
      { scope: `budget:${agent}`, before: one, after: two, woken: 0 },
      { scope: `budget:${agent}`, before: two, after: null, woken: 0 },
    ]);
  } finally {
    await db.query("delete from spend_caps where agent = $1", [agent]);
    await db.query("delete from spend_daily where agent = $1", [agent]);
    await db.query("delete from agent_catalog where name = $1", [agent]);
  }
});

test("an admin adds an alert on a day's spend, its threshold in money", async ({ page, db }) => {
  const name = `e2e spend ${randomWord(6)}`;
  try {
    await page.goto("/settings/alerts");
    const form = page.getByRole("form", { name: "Add an alert rule" });
    await form.getByLabel("Name").fill(name);
    await form.getByLabel("Alert when").selectOption("spend_day_over");
    await form.getByLabel("Agent").fill("refund");
    await form.getByLabel("Spend today over ($)").fill("0");
    await form.getByLabel("Slack incoming webhook").check();
    await form.getByLabel("URL").fill("https://hooks.example.com/e2e-spend");
    await form.getByRole("button", { name: "Add rule" }).click();
    await expect(form.getByText("must be more than 0")).toBeVisible();
    await form.getByLabel("Spend today over ($)").fill("25.5");
    await form.getByRole("button", { name: "Add rule" }).click();
    await expect
      .poll(
        async () => (await db.query("select 1 from alert_rules where name = $1", [name])).rowCount,
      )
      .toBe(1);
    const saved = (
      await db.query<{ id: string; kind: string; agent: string; threshold: number }>(
        "select id, kind, agent, threshold from alert_rules where name = $1",
        [name],
      )
    ).rows[0];
    expect(saved).toMatchObject({ kind: "spend_day_over", agent: "refund", threshold: 25.5 });
    await expect(page.locator(`tr[data-rule-id="${saved?.id}"]`)).toContainText(
      "agent refund, spend today (UTC) over $25.5",
    );
  } finally {
    await db.query("delete from alert_rules where name = $1", [name]);
  }
});
