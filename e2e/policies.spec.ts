// The retry-policies screen against the seeded demo: what is in force per agent and where each
// value comes from (refund's 6 attempts from its code), the form's inherited values and units,
// and an admin lowering a retry limit, seen before → after in the history and in the ledger.
import { mkdirSync } from "node:fs";
import { z } from "zod";
import { operator } from "../lib/domain/access";
import { BUILT_IN_POLICY } from "../lib/domain/retry-policy";
import { parseEnv } from "../lib/env";
import { aiModel } from "../lib/sdk/ai/model";
import { scriptedLanguageModel } from "../lib/sdk/ai/scripted-model";
import { defineAgent } from "../lib/sdk/define";
import { setPolicy } from "../lib/server/commands/set-policy";
import { createAgents } from "../worker/agents";
import { catalogEntry, publishCatalog } from "../worker/runtime/catalog";
import { enqueue, expect, publishLoneTool, randomWord, runTasks, test } from "./fixtures";

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
    /Agent row/,
    /Agent code/,
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
  // Durations in seconds, the unit the form takes.
  await expect(builtIn.locator('[data-field="backoffInitialMs"]')).toHaveText(
    `${BUILT_IN_POLICY.backoffInitialMs / 1_000} s`,
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
  await expect(row.locator('[data-field="backoffInitialMs"]')).toHaveText("0.25 s");
  // Backoff factor and cap, timeout, budget and the concurrency limit.
  await expect(row.getByText("inherits")).toHaveCount(5);
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
  // An agent with tasks but no row and no published code follows the global policy.
  const theirs = inForce.locator(`tr[data-agent="${other}"]`);
  await expect(theirs.locator('[data-field="maxAttempts"]')).toHaveText(
    String(global?.max_attempts),
  );
  await expect(theirs.locator('[data-field="maxAttempts"]')).toHaveAttribute(
    "data-source",
    "global",
  );

  const history = page.getByRole("region", { name: "Change history" });
  const latest = history
    .getByRole("list", { name: "Policy changes, newest first" })
    .locator(":scope > li")
    .first();
  await expect(latest).toContainText(`agent:${agent}`);
  await expect(latest).toContainText("set by admin@example.com");
  const attempts = latest.locator('li[data-field="maxAttempts"]');
  // What it replaced: no published code, so the global row's value.
  await expect(attempts.locator('[data-side="before"]')).toHaveText(
    `${global?.max_attempts} (global)`,
  );
  await expect(attempts.locator('[data-side="after"]')).toHaveText("9");
  await history.getByRole("link", { name: "All policy changes" }).click();
  await expect(page).toHaveURL(/\/ledger\?kind=policy\.changed$/);
  await expect(page.locator("tbody tr").first()).toContainText("admin@example.com");
});

test.describe("refund's retry limit", () => {
  // What a worker publishes at start. No worker runs against the e2e database, so this spec
  // publishes the demo refund agent itself and puts the catalog back afterwards: other specs
  // rely on refund being unpublished (no two-person rule on the seeded refunds).
  const refund = createAgents(parseEnv({})).find((a) => a.name === "refund");
  let hadCatalogRow = true;

  test.beforeAll(async ({ db }) => {
    if (!refund) throw new Error("the demo refund agent is missing");
    const { rowCount } = await db.query("select 1 from agent_catalog where name = 'refund'");
    hadCatalogRow = (rowCount ?? 0) > 0;
    await publishCatalog(db, [refund], "e2e-policies");
  });

  test.afterAll(async ({ db }) => {
    if (!hadCatalogRow) {
      await db.query("delete from agent_catalog where name = 'refund' and published_by = $1", [
        "e2e-policies",
      ]);
    }
  });

  test("shows 6 from the agent's code; an admin lowers it and sees before → after in the history and the ledger", async ({
    page,
    db,
  }) => {
    const existing = await db.query("select 1 from retry_policies where scope = 'agent:refund'");
    expect(existing.rowCount, "the seeded demo has no agent:refund row").toBe(0);

    await page.goto("/settings/retry-policies");
    const inForce = page.getByRole("region", { name: "In force per agent" });
    const refundRow = inForce.locator('tr[data-agent="refund"]');
    const attemptsInForce = refundRow.locator('[data-field="maxAttempts"]');
    await expect(attemptsInForce).toHaveText("6");
    await expect(attemptsInForce).toHaveAttribute("data-source", "code");
    await expect(refundRow).toContainText("agent code");
    await expect(refundRow.locator('[data-field="backoffInitialMs"]')).toHaveText("0.5 s");
    // The code version the worker published beside it (derived: refund declares none).
    await expect(refundRow.locator("[data-code-version]")).toHaveText(
      refund ? catalogEntry(refund).version : "the demo refund agent",
    );
    const code = page.getByRole("region", { name: "Declared in agent code" });
    await expect(
      code.locator('tr[data-code-agent="refund"] [data-field="maxAttempts"]'),
    ).toHaveText("6");

    // A new override: every empty field says what it inherits, in the page's units.
    const agents = page.getByRole("region", { name: "Agent overrides" });
    await agents.getByLabel("Add an override for").selectOption("refund");
    await agents.getByRole("button", { name: "Set refund…" }).click();
    const dialog = page.getByRole("dialog", { name: "Retry policy: refund" });
    const maxAttempts = dialog.getByLabel(/Max attempts/);
    await expect(maxAttempts).toHaveAttribute("placeholder", "6 (agent code)");
    await expect(maxAttempts).toHaveAccessibleDescription(/Empty inherits 6 from agent code/);
    const firstBackoff = dialog.getByLabel(/First backoff \(seconds\)/);
    await expect(firstBackoff).toHaveAttribute("placeholder", "0.5 (agent code)");

    // A refusal names the field and the unit.
    await maxAttempts.fill("4");
    await firstBackoff.fill("0.0005");
    await dialog.getByRole("button", { name: "Save policy" }).click();
    await expect(dialog).toContainText("must have at most 3 decimals (whole milliseconds)");
    await firstBackoff.fill("");
    await dialog.getByRole("button", { name: "Save policy" }).click();
    await expect(agents.getByTestId("review-status")).toContainText(
      "Saved the agent:refund policy (version 1)",
    );
    await expect(attemptsInForce).toHaveText("4");
    await expect(attemptsInForce).toHaveAttribute("data-source", "agent");

    // Lowered again, from the row's own value.
    await agents.getByRole("button", { name: "Edit refund…" }).click();
    const edit = page.getByRole("dialog", { name: "Retry policy: refund" });
    await expect(edit.getByLabel(/Max attempts/)).toHaveValue("4");
    await edit.getByLabel(/Max attempts/).fill("3");
    await edit.getByRole("button", { name: "Save policy" }).click();
    await expect(agents.getByTestId("review-status")).toContainText(
      "Saved the agent:refund policy (version 2)",
    );
    await expect(attemptsInForce).toHaveText("3");

    const history = page
      .getByRole("region", { name: "Change history" })
      .getByRole("list", { name: "Policy changes, newest first" });
    const [latest, previous] = [
      history.locator(":scope > li").nth(0),
      history.locator(":scope > li").nth(1),
    ];
    await expect(latest).toContainText("agent:refund");
    await expect(latest).toContainText("changed by user:admin@example.com");
    await expect(latest.locator('li[data-field="maxAttempts"] [data-side="before"]')).toHaveText(
      "4",
    );
    await expect(latest.locator('li[data-field="maxAttempts"] [data-side="after"]')).toHaveText(
      "3",
    );
    await expect(previous).toContainText("set by user:admin@example.com");
    // The first change replaced the value the agent's code set.
    await expect(previous.locator('li[data-field="maxAttempts"] [data-side="before"]')).toHaveText(
      "6 (agent code)",
    );
    await expect(previous.locator('li[data-field="maxAttempts"] [data-side="after"]')).toHaveText(
      "4",
    );
    mkdirSync("docs/screenshots", { recursive: true });
    await page.screenshot({ path: "docs/screenshots/retry-policies.png", fullPage: true });

    // The ledger holds the same change, with before, after and who.
    const entryId = await latest.getAttribute("data-entry-id");
    const entry = await db.query<{ actor: string; data: unknown }>(
      "select actor, data from ledger_entries where id = $1 and kind = 'policy.changed'",
      [entryId],
    );
    expect(entry.rows[0]).toEqual({
      actor: "user:admin@example.com",
      data: {
        scope: "agent:refund",
        before: { maxAttempts: 4 },
        after: { maxAttempts: 3 },
        inForce: {
          maxAttempts: {
            before: { value: 4, source: "agent" },
            after: { value: 3, source: "agent" },
          },
        },
      },
    });
    await page
      .getByRole("region", { name: "Change history" })
      .getByRole("link", { name: "All policy changes" })
      .click();
    await expect(page).toHaveURL(/\/ledger\?kind=policy\.changed$/);
    await expect(page.locator("tbody tr").first()).toContainText("user:admin@example.com");
  });
});

test("an admin sets a tool's rate limit, sees it in force and before → after in the history, then clears it", async ({
  page,
  db,
}) => {
  // A tool of its own: a limit on the demo's tools would slow the specs that run them.
  const tool = `e2e_limited_${randomWord(6)}`;
  const agent = `e2e-limits-${randomWord(6)}`;
  await publishLoneTool(db, agent, tool, {
    rateLimit: { limit: 10, periodMs: 1_000, keyed: true },
    by: "e2e-policies",
  });
  try {
    await page.goto("/settings/retry-policies");
    const limits = page.getByRole("region", { name: "Tool rate limits" });
    const row = limits.locator(`tr[data-tool="${tool}"]`);
    await expect(row).toContainText(agent);
    await expect(row.locator('[data-cell="in-force"]')).toHaveText(
      "10 calls per 1 s per key (agent code)",
    );

    await row.getByRole("button", { name: `Set ${tool}'s limit…` }).click();
    const dialog = page.getByRole("dialog", { name: `Rate limit: ${tool}` });
    await expect(dialog.getByLabel(/Calls/)).toHaveAttribute("placeholder", "10 (agent code)");
    await dialog.getByLabel(/Calls/).fill("5");
    await dialog.getByRole("button", { name: "Save rate limit" }).click();
    await expect(dialog).toContainText("is required with calls");
    await dialog.getByLabel(/Per period/).fill("2");
    await dialog.getByRole("button", { name: "Save rate limit" }).click();
    await expect(limits.getByTestId("review-status")).toContainText(
      `Saved the rate limit of ${tool} (version 1)`,
    );
    await expect(row.locator('[data-cell="in-force"]')).toHaveText(
      "5 calls per 2 s per key (admin)",
    );

    const latest = page
      .getByRole("region", { name: "Change history" })
      .getByRole("list", { name: "Policy changes, newest first" })
      .locator(":scope > li")
      .first();
    await expect(latest).toContainText(`tool:${tool}`);
    await expect(latest.locator('[data-side="before"]')).toHaveText(
      "10 calls per 1 s per key (agent code)",
    );
    await expect(latest.locator('[data-side="after"]')).toHaveText("5 calls per 2 s per key");

    await row.getByRole("button", { name: `Edit ${tool}'s limit…` }).click();
    const edit = page.getByRole("dialog", { name: `Rate limit: ${tool}` });
    await edit.getByLabel(/Calls/).fill("");
    await edit.getByLabel(/Per period/).fill("");
    await edit.getByRole("button", { name: "Save rate limit" }).click();
    await expect(limits.getByTestId("review-status")).toContainText(
      `Cleared the admin's rate limit of ${tool}`,
    );
    await expect(row.locator('[data-cell="in-force"]')).toHaveText(
      "10 calls per 1 s per key (agent code)",
    );
    const recorded = await db.query<{ actor: string; data: unknown }>(
      `select actor, data from ledger_entries where kind = 'policy.changed' and data->>'scope' = $1 order by id`,
      [`tool:${tool}`],
    );
    expect(recorded.rows.map((r) => r.data)).toEqual([
      {
        scope: `tool:${tool}`,
        before: null,
        after: { limit: 5, periodMs: 2_000 },
        code: { limit: 10, periodMs: 1_000, keyed: true },
      },
      {
        scope: `tool:${tool}`,
        before: { limit: 5, periodMs: 2_000 },
        after: null,
        code: { limit: 10, periodMs: 1_000, keyed: true },
      },
    ]);
  } finally {
    await db.query("delete from tool_rate_limits where tool = $1", [tool]);
    await db.query("delete from agent_catalog where name = $1", [agent]);
  }
});

test("an admin sets a model's price, sees it in force and before → after in the history, then clears it", async ({
  page,
  db,
}) => {
  // A shipped model no spec calls, so its price changes no other spec's costs.
  const model = "gemini-2.5-pro";
  await db.query("delete from model_prices where model = $1", [model]);
  try {
    await page.goto("/settings/retry-policies");
    const prices = page.getByRole("region", { name: "Model prices" });
    const row = prices.locator(`tr[data-model="${model}"]`);
    await expect(row.locator('[data-cell="default"]')).toHaveText("$1.25 · $0.31 · $10");
    await expect(row.locator('[data-cell="in-force"]')).toHaveText("$1.25 · $0.31 · $10");
    await expect(row).toContainText("(default, unless configured)");

    await row.getByRole("button", { name: `Set ${model}'s price…` }).click();
    const dialog = page.getByRole("dialog", { name: `Price: ${model}` });
    await expect(dialog.getByLabel(/^Input/)).toHaveAttribute("placeholder", "1.25 (default)");
    await dialog.getByLabel(/^Input/).fill("2");
    await dialog.getByRole("button", { name: "Save price" }).click();
    await expect(dialog).toContainText("is required with a price");
    await dialog.getByLabel(/^Output/).fill("12");
    await dialog.getByRole("button", { name: "Save price" }).click();
    await expect(prices.getByTestId("review-status")).toContainText(
      `Saved the price of ${model} (version 1)`,
    );
    // No cached price of its own: cached input costs what other input costs.
    await expect(row.locator('[data-cell="in-force"]')).toHaveText("$2 · $2 · $12");
    await expect(row).toContainText("(admin)");

    // A call recorded now is charged the admin's price, and its task page says so.
    const agent = defineAgent({
      name: `e2e-priced-${randomWord(6)}`,
      input: z.object({}),
      tools: {},
      run: async (ctx) => ({ text: (await ctx.model({ prompt: "Price me." })).text }),
    });
    const languageModel = scriptedLanguageModel(() => ({
      text: "Priced.",
      usage: { cachedInputTokens: 1_000, reasoningTokens: 100 },
    }));
    const id = await enqueue(db, agent.name, {});
    await runTasks(
      [agent],
      [id],
      ["succeeded"],
      20_000,
      aiModel(languageModel, { modelId: model }),
    );
    await page.goto(`/tasks/${id}`);
    await expect(page.getByTestId("model-call-cost")).toContainText("provider: scripted");
    await expect(page.getByTestId("model-call-cost")).toContainText(
      /\(1000 cached\), out \d+ \(100 reasoning\)/,
    );
    await expect(page.getByTestId("model-call-cost")).toContainText(
      "price: $2 in · $12 out per Mtok (dashboard)",
    );
    await page.goto("/settings/retry-policies");

    const latest = page
      .getByRole("region", { name: "Change history" })
      .getByRole("list", { name: "Policy changes, newest first" })
      .locator(":scope > li")
      .first();
    await expect(latest).toContainText(`model:${model}`);
    await expect(latest.locator('[data-side="before"]')).toHaveText(
      "$1.25 in · $0.31 cached · $10 out per Mtok (shipped default, unless configured)",
    );
    await expect(latest.locator('[data-side="after"]')).toHaveText("$2 in · $12 out per Mtok");

    await row.getByRole("button", { name: `Edit ${model}'s price…` }).click();
    const edit = page.getByRole("dialog", { name: `Price: ${model}` });
    await edit.getByLabel(/^Input/).fill("");
    await edit.getByLabel(/^Output/).fill("");
    await edit.getByRole("button", { name: "Save price" }).click();
    await expect(prices.getByTestId("review-status")).toContainText(
      `Cleared the admin's price of ${model}`,
    );
    await expect(row.locator('[data-cell="in-force"]')).toHaveText("$1.25 · $0.31 · $10");
    const recorded = await db.query<{ data: unknown }>(
      `select data from ledger_entries where kind = 'policy.changed' and data->>'scope' = $1 order by id desc limit 2`,
      [`model:${model}`],
    );
    expect(recorded.rows.map((r) => r.data).reverse()).toEqual([
      {
        scope: `model:${model}`,
        before: null,
        after: { inputPerMTok: 2, outputPerMTok: 12 },
        default: { inputPerMTok: 1.25, outputPerMTok: 10, cachedInputPerMTok: 0.31 },
      },
      {
        scope: `model:${model}`,
        before: { inputPerMTok: 2, outputPerMTok: 12 },
        after: null,
        default: { inputPerMTok: 1.25, outputPerMTok: 10, cachedInputPerMTok: 0.31 },
      },
    ]);
  } finally {
    await db.query("delete from model_prices where model = $1", [model]);
  }
});
