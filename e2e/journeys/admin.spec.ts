// The admin: from the overview to the retry policies, where they give an agent its own retry
// limit and then lower it; the page shows what is in force and the change before → after, and
// the ledger holds the same change with before, after and their name. The agent is one only this
// journey uses, so the seeded agents' policies (which other specs read) stay as they are.
import { asRole, enqueue, expect, randomWord, test } from "../fixtures";
import { ADMIN, filterLedger, JOURNEY_VIEWPORT, shot } from "./steps";

test.use({ ...asRole("admin"), viewport: JOURNEY_VIEWPORT });

test("admin: lowers a retry limit and sees before → after in the history and the ledger", async ({
  page,
  db,
}) => {
  const agent = `e2e-journey-admin-${randomWord(8)}`;
  // An agent with work in the queue: the policies page offers it an override.
  await enqueue(db, agent, { n: 1 });
  const { rows } = await db.query<{ max_attempts: number }>(
    "select max_attempts from retry_policies where scope = 'global'",
  );
  const global = rows[0]?.max_attempts;
  if (global === undefined) throw new Error("the e2e database was seeded without a global policy");

  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await shot(page, "admin", 1, "overview");

  await page.goto("/settings/retry-policies");
  const inForce = page
    .getByRole("region", { name: "In force per agent" })
    .locator(`tr[data-agent="${agent}"] [data-field="maxAttempts"]`);
  await expect(inForce).toHaveText(String(global));
  await expect(inForce).toHaveAttribute("data-source", "global");

  // Its own limit first, then lowered.
  const overrides = page.getByRole("region", { name: "Agent overrides" });
  await overrides.getByLabel("Add an override for").selectOption(agent);
  await overrides.getByRole("button", { name: `Set ${agent}…` }).click();
  const set = page.getByRole("dialog", { name: `Retry policy: ${agent}` });
  await set.getByLabel(/Max attempts/).fill("4");
  await set.getByRole("button", { name: "Save policy" }).click();
  await expect(overrides.getByTestId("review-status")).toContainText(
    `Saved the agent:${agent} policy (version 1)`,
  );
  await overrides.getByRole("button", { name: `Edit ${agent}…` }).click();
  const edit = page.getByRole("dialog", { name: `Retry policy: ${agent}` });
  await expect(edit.getByLabel(/Max attempts/)).toHaveValue("4");
  await edit.getByLabel(/Max attempts/).fill("2");
  await shot(page, "admin", 2, "lower-limit");
  await edit.getByRole("button", { name: "Save policy" }).click();
  await expect(overrides.getByTestId("review-status")).toContainText(
    `Saved the agent:${agent} policy (version 2)`,
  );
  await expect(inForce).toHaveText("2");
  await expect(inForce).toHaveAttribute("data-source", "agent");

  // The history: before → after, by whom.
  const latest = page
    .getByRole("region", { name: "Change history" })
    .getByRole("list", { name: "Policy changes, newest first" })
    .locator(":scope > li")
    .filter({ hasText: `agent:${agent}` })
    .first();
  await expect(latest).toContainText(`changed by ${ADMIN}`);
  const attempts = latest.locator('li[data-field="maxAttempts"]');
  await expect(attempts.locator('[data-side="before"]')).toHaveText("4");
  await expect(attempts.locator('[data-side="after"]')).toHaveText("2");
  await latest.scrollIntoViewIfNeeded();
  await shot(page, "admin", 3, "history");
  const entryId = (await latest.getAttribute("data-entry-id")) ?? "";

  // The ledger: the same entry, found by kind and the admin's name, before and after in its data.
  await filterLedger(page, { Kind: "policy.changed", Actor: ADMIN });
  const row = page.locator(`[data-testid="ledger-row"][data-entry-id="${entryId}"]`);
  await expect(row.getByTestId("entry-summary")).toHaveText(
    `by: admin@example.com · scope: agent:${agent}`,
  );
  await row.getByRole("button", { name: /Show data of entry/ }).click();
  await page.getByRole("button", { name: "Show raw JSON" }).click();
  const raw = page.getByTestId("entry-raw-json");
  await expect(raw).toContainText(`agent:${agent}`);
  expect(JSON.parse((await raw.textContent()) ?? "")).toEqual({
    scope: `agent:${agent}`,
    before: { maxAttempts: 4 },
    after: { maxAttempts: 2 },
  });
  await shot(page, "admin", 4, "ledger");

  const entry = await db.query<{ actor: string; data: unknown }>(
    "select actor, data from ledger_entries where id = $1 and kind = 'policy.changed'",
    [entryId],
  );
  expect(entry.rows).toEqual([
    {
      actor: ADMIN,
      data: { scope: `agent:${agent}`, before: { maxAttempts: 4 }, after: { maxAttempts: 2 } },
    },
  ]);
});
