import { operator } from "../lib/domain/access";
import { BUILT_IN_POLICY } from "../lib/domain/retry-policy";
import { setPolicy } from "../lib/server/commands/set-policy";
import { enqueue, expect, randomWord, test } from "./fixtures";

test("the global policy and the built-in defaults come from the database and the code", async ({
  page,
  db,
}) => {
  const { rows } = await db.query<{
    max_attempts: number;
    budget: number | null;
    version: number;
    updated_by: string;
  }>("select max_attempts, budget, version, updated_by from retry_policies where scope = 'global'");
  const global = rows[0];
  if (!global) throw new Error("the e2e database was seeded without a global policy");

  await page.goto("/settings/retry-policies");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Retry policies");

  const chain = page.getByRole("list", { name: "Resolution order, first match wins" });
  await expect(chain.getByRole("listitem")).toHaveText([
    /Task override/,
    /Agent/,
    /Global/,
    /Built-in/,
  ]);

  const globalCard = page.getByRole("region", { name: "Global default" });
  await expect(globalCard).toContainText(
    `Version ${global.version}, updated by ${global.updated_by}`,
  );
  await expect(page.getByTestId("policy-global").locator('[data-field="maxAttempts"]')).toHaveText(
    String(global.max_attempts),
  );
  const builtIn = page.getByTestId("policy-built-in");
  await expect(builtIn.locator('[data-field="maxAttempts"]')).toHaveText(
    String(BUILT_IN_POLICY.maxAttempts),
  );
  await expect(builtIn.locator('[data-field="budget"]')).toHaveText(
    BUILT_IN_POLICY.budget === null ? "Unlimited" : /\d/,
  );
});

test("an agent override shows with what it inherits, what is in force and who changed it", async ({
  page,
  db,
}) => {
  const agent = `e2e-policy-${randomWord(6)}`;
  const other = `e2e-policy-${randomWord(6)}`;
  await enqueue(db, other, { n: 1 });
  const saved = await setPolicy(db, operator("admin@example.com"), {
    scope: `agent:${agent}`,
    version: null,
    policy: { maxAttempts: 9, backoffInitialMs: 250 },
  });
  expect(saved).toMatchObject({ ok: true });
  const { rows } = await db.query<{ max_attempts: number; backoff_factor: number }>(
    "select max_attempts, backoff_factor from retry_policies where scope = 'global'",
  );
  const global = rows[0];

  await page.goto("/settings/retry-policies");
  const row = page
    .getByRole("region", { name: "Agent overrides" })
    .locator(`tr[data-scope="agent:${agent}"]`);
  await expect(row.locator('[data-field="maxAttempts"]')).toHaveText("9");
  await expect(row.locator('[data-field="backoffInitialMs"]')).toHaveText("250 ms");
  await expect(row.getByText("inherits")).toHaveCount(4);
  await expect(row).toContainText("admin@example.com");

  const inForce = page.getByRole("region", { name: "In force per agent" });
  const mine = inForce.locator(`tr[data-agent="${agent}"]`);
  await expect(mine.locator('[data-field="maxAttempts"]')).toHaveAttribute("data-source", "agent");
  await expect(mine.locator('[data-field="maxAttempts"]')).toHaveText("9");
  await expect(mine.locator('[data-field="backoffFactor"]')).toHaveAttribute(
    "data-source",
    "global",
  );
  await expect(mine.locator('[data-field="backoffFactor"]')).toHaveText(
    `×${global?.backoff_factor}`,
  );
  // An agent with tasks but no row follows the global policy.
  const theirs = inForce.locator(`tr[data-agent="${other}"]`);
  await expect(theirs.locator('[data-field="maxAttempts"]')).toHaveText(
    String(global?.max_attempts),
  );
  await expect(theirs.locator('[data-field="maxAttempts"]')).toHaveAttribute(
    "data-source",
    "global",
  );

  const changes = page.getByRole("region", { name: "Recent changes" });
  const latest = changes.getByRole("listitem").first();
  await expect(latest).toContainText(`agent:${agent}`);
  await expect(latest).toContainText("set by admin@example.com");
  await expect(latest).toContainText("Max attempts 9");
  await changes.getByRole("link", { name: "All policy changes" }).click();
  await expect(page).toHaveURL(/\/ledger\?kind=policy\.changed$/);
  await expect(page.locator("tbody tr").first()).toContainText("admin@example.com");
});
