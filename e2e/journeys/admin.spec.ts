// The admin: from the overview to the retry policies, where they lower a retry limit the agent's
// code sets (the demo refund agent declares maxAttempts 6): the page shows what is in force and
// the history says "6 (agent code) → 5", the ledger's summary of the change says the same, and
// its entry holds before, after, what was in force and their name. A bad number is refused in
// the field's own words. The agent is the demo refund agent's code published under a name only
// this journey uses, so the seeded agents' policies (which other specs read) stay as they are.
import { parseEnv } from "../../lib/env";
import { createAgents } from "../../worker/agents";
import { publishCatalog } from "../../worker/runtime/catalog";
import { asRole, enqueue, expect, randomWord, test } from "../fixtures";
import { ADMIN, filterLedger, JOURNEY_VIEWPORT, shot } from "./steps";

test.use({ ...asRole("admin"), viewport: JOURNEY_VIEWPORT });

test("admin: lowers a retry limit set in agent code and reads 6 (agent code) → 5 in the history and the ledger", async ({
  page,
  db,
}) => {
  const refund = createAgents(parseEnv({})).find((a) => a.name === "refund");
  if (!refund) throw new Error("the demo refund agent is missing");
  expect(refund.policy?.maxAttempts, "the demo refund agent sets 6 attempts in its code").toBe(6);
  const agent = `e2e-journey-admin-${randomWord(8)}`;
  // As its workers would publish it at start, with work in the queue.
  await publishCatalog(db, [{ ...refund, name: agent }], "e2e-journey-admin");
  await enqueue(db, agent, { n: 1 });

  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await shot(page, "admin", 1, "overview");

  await page.goto("/settings/retry-policies");
  const inForce = page
    .getByRole("region", { name: "In force per agent" })
    .locator(`tr[data-agent="${agent}"] [data-field="maxAttempts"]`);
  await expect(inForce).toHaveText("6");
  await expect(inForce).toHaveAttribute("data-source", "code");

  const overrides = page.getByRole("region", { name: "Agent overrides" });
  await overrides.getByLabel("Add an override for").selectOption(agent);
  await overrides.getByRole("button", { name: `Set ${agent}…` }).click();
  const set = page.getByRole("dialog", { name: `Retry policy: ${agent}` });
  const attemptsField = set.getByLabel(/Max attempts/);
  await expect(attemptsField).toHaveAttribute("placeholder", "6 (agent code)");

  // Numbers the runtime cannot honour are refused field by field, nothing saved.
  await attemptsField.fill("5");
  await set.getByLabel(/Backoff factor/).fill("1e309");
  await set.getByLabel(/Attempt timeout/).fill(`1${"0".repeat(399)}`);
  await set.getByRole("button", { name: "Save policy" }).click();
  await expect(set.getByLabel(/Backoff factor/)).toHaveAccessibleDescription(
    /must be at most 100$/,
  );
  await expect(set.getByLabel(/Attempt timeout/)).toHaveAccessibleDescription(
    /must be at most 86,400 s$/,
  );
  await expect(set.getByLabel(/Backoff factor/)).toHaveAttribute("aria-invalid", "true");
  await expect(attemptsField).not.toHaveAttribute("aria-invalid", "true");
  await shot(page, "admin", 5, "refused-numbers");
  await set.getByLabel(/Backoff factor/).fill("");
  await set.getByLabel(/Attempt timeout/).fill("");
  await shot(page, "admin", 2, "lower-limit");
  await set.getByRole("button", { name: "Save policy" }).click();
  await expect(overrides.getByTestId("review-status")).toContainText(
    `Saved the agent:${agent} policy (version 1)`,
  );
  await expect(inForce).toHaveText("5");
  await expect(inForce).toHaveAttribute("data-source", "agent");

  // The history: the value it replaced and where that came from, by whom.
  const latest = page
    .getByRole("region", { name: "Change history" })
    .getByRole("list", { name: "Policy changes, newest first" })
    .locator(":scope > li")
    .filter({ hasText: `agent:${agent}` })
    .first();
  await expect(latest).toContainText(`set by ${ADMIN}`);
  const attempts = latest.locator('li[data-field="maxAttempts"]');
  await expect(attempts).toContainText("Max attempts 6 (agent code)");
  await expect(attempts.locator('[data-side="before"]')).toHaveText("6 (agent code)");
  await expect(attempts.locator('[data-side="after"]')).toHaveText("5");
  await latest.scrollIntoViewIfNeeded();
  await shot(page, "admin", 3, "history");
  const entryId = (await latest.getAttribute("data-entry-id")) ?? "";

  // The ledger: the same entry, found by kind and the admin's name; its summary says 6 → 5.
  await filterLedger(page, { Kind: "policy.changed", Actor: ADMIN });
  const row = page.locator(`[data-testid="ledger-row"][data-entry-id="${entryId}"]`);
  await expect(row.getByTestId("entry-summary")).toHaveText(
    `by: admin@example.com · scope: agent:${agent} · Max attempts 6 (agent code) → 5`,
  );
  await row.getByRole("button", { name: /Show data of entry/ }).click();
  await page.getByRole("button", { name: "Show raw JSON" }).click();
  const raw = page.getByTestId("entry-raw-json");
  await expect(raw).toContainText(`agent:${agent}`);
  const recorded = {
    scope: `agent:${agent}`,
    before: null,
    after: { maxAttempts: 5 },
    inForce: {
      maxAttempts: { before: { value: 6, source: "code" }, after: { value: 5, source: "agent" } },
    },
  };
  expect(JSON.parse((await raw.textContent()) ?? "")).toEqual(recorded);
  await shot(page, "admin", 4, "ledger");

  const entry = await db.query<{ actor: string; data: unknown }>(
    "select actor, data from ledger_entries where id = $1 and kind = 'policy.changed'",
    [entryId],
  );
  expect(entry.rows).toEqual([{ actor: ADMIN, data: recorded }]);
});
