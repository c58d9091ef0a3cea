// The spend screen on the demo database: a real worker runs an agent of its own whose scripted
// model calls cost something (one task ends dead), and the screen, filtered to that agent in the
// address, shows what the database holds; the export downloads those rows; reviewers are refused.
import { readFileSync } from "node:fs";
import { z } from "zod";
import { THEME_COOKIE } from "../components/theme/theme";
import { formatCostUsd } from "../lib/domain/money";
import { defineAgent, defineTool } from "../lib/sdk/define";
import { createScriptedModel } from "../worker/models/scripted";
import { blockingViolations } from "./axe";
import { asRole, enqueue, expect, randomWord, runTasks, test } from "./fixtures";

const percent = new Intl.NumberFormat("en-US", { style: "percent", maximumFractionDigits: 1 });

function spendAgent(name: string) {
  const lookup = defineTool({
    name: "lookup",
    input: z.object({ ref: z.string() }),
    intent: (a) => ({ ref: a.ref }),
    execute: async (a) => ({ found: a.ref }),
  });
  return defineAgent({
    name,
    input: z.object({ ref: z.string(), fail: z.boolean() }),
    tools: { lookup },
    policy: { maxAttempts: 1 },
    run: async (ctx, input) => {
      const decision = await ctx.model({ prompt: `Look up ${input.ref}`, tools: ["lookup"] });
      if (decision.toolCalls.length > 0) await ctx.tool("lookup", { ref: input.ref });
      if (input.fail) throw new Error(`${input.ref} fails after the model answered`);
      return { text: decision.text };
    },
  });
}

// Answers with a lookup for odd refs and plain text for even ones, so both tool rows appear.
const model = createScriptedModel((req) => {
  const n = Number(/(\d+)$/.exec(req.prompt ?? "")?.[1] ?? 0);
  return {
    text: `Checked ${req.prompt}: ${"details ".repeat(n * 20)}`,
    toolCalls: n % 2 === 1 ? [{ toolName: "lookup", args: { ref: String(n) } }] : [],
  };
});

const agent = `spend-${randomWord(8)}`;

test.describe("as ops", () => {
  test.use(asRole("ops"));

  test.beforeAll(async ({ db }) => {
    const ids = [
      await enqueue(db, agent, { ref: "r1", fail: false }),
      await enqueue(db, agent, { ref: "r2", fail: false }),
      await enqueue(db, agent, { ref: "r3", fail: true }),
    ];
    await runTasks([spendAgent(agent)], ids, ["succeeded", "dead"], 30_000, model);
  });

  test("the screen shows the database's figures, narrowed by the agent in the address", async ({
    page,
    db,
  }) => {
    const counters = await db.query<{ cost: number; calls: string; input: string }>(
      `select sum(cost)::float8 as cost, sum(calls) as calls, sum(input_tokens) as input
         from spend_daily where agent = $1`,
      [agent],
    );
    const ledger = await db.query<{ cost: number; calls: string }>(
      `select sum((e.data ->> 'cost')::float8) as cost, count(*) as calls
         from ledger_entries e join tasks t on t.id = e.task_id
        where e.kind = 'model.called' and t.agent = $1`,
      [agent],
    );
    const tasks = await db.query<{ status: string; cost: number }>(
      "select status, cost from tasks where agent = $1 order by cost desc, id desc",
      [agent],
    );
    const figures = counters.rows[0];
    expect(figures?.calls).toBe("3");
    expect(figures?.cost).toBeCloseTo(ledger.rows[0]?.cost ?? -1, 12);
    const all = tasks.rows.reduce((s, r) => s + r.cost, 0);
    const dead = tasks.rows.filter((r) => r.status === "dead").reduce((s, r) => s + r.cost, 0);
    expect(dead).toBeGreaterThan(0);

    await page.goto("/spend");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Spend");
    await expect(
      page.getByTestId("spend-by-agent-table").locator(`tr[data-key="${agent}"]`),
    ).toHaveCount(1);
    await expect(page.getByTestId("spend-chart").getByRole("img")).toBeVisible();
    await page.screenshot({ path: "docs/screenshots/spend.png", fullPage: true });

    // The filter form writes the agent into the address.
    await page.getByLabel("Agent", { exact: true }).selectOption(agent);
    await page.getByRole("button", { name: "Filter" }).click();
    await expect(page).toHaveURL(new RegExp(`[?&]agent=${agent}`));
    await expect(page.getByTestId("spend-total-cost")).toHaveText(
      formatCostUsd(figures?.cost ?? 0),
    );
    await expect(page.getByTestId("spend-total-calls")).toHaveText("3");
    await expect(page.getByTestId("spend-input-tokens")).toHaveText(
      Number(figures?.input).toLocaleString("en-US"),
    );
    await expect(page.getByTestId("spend-by-agent-table").locator("tbody tr")).toHaveCount(1);
    await expect(page.getByTestId("spend-wasted-share")).toHaveText(percent.format(dead / all));
    await expect(page.getByTestId("spend-dead-cost")).toHaveText(formatCostUsd(dead));
    const top = page.getByTestId("spend-top-tasks").locator("tbody tr");
    await expect(top).toHaveCount(3);
    await expect(top.first().getByTestId("row-cost")).toHaveText(
      formatCostUsd(tasks.rows[0]?.cost ?? 0),
    );
    await expect(page.getByTestId("spend-by-tool")).toContainText("No tool (text answer)");
    await expect(page.getByTestId("spend-by-tool")).toContainText("lookup");

    // The export downloads the same filter's rows per day, agent and model.
    const download = page.waitForEvent("download");
    await page.getByTestId("spend-export").getByRole("link", { name: "CSV" }).click();
    const csv = readFileSync(await (await download).path(), "utf8")
      .trim()
      .split("\r\n");
    expect(csv[0]).toBe(
      "day,agent,model,calls,unpriced_calls,input_tokens,output_tokens,cached_input_tokens,reasoning_tokens,cost_usd",
    );
    expect(csv).toHaveLength(2);
    const cells = csv[1]?.split(",") ?? [];
    expect(cells.slice(1, 4)).toEqual([agent, "scripted", "3"]);
    expect(Number(cells[9])).toBeCloseTo(figures?.cost ?? -1, 12);

    // A model no call used: nothing spent, said so.
    await page.goto(`/spend?agent=${agent}&model=no-such-model`);
    await expect(page.getByText("Nothing was spent in this window")).toHaveCount(0);
    await expect(page.getByTestId("spend-total-calls")).toHaveText("0");
    await page.goto("/spend?from=2001-01-01&to=2001-01-31");
    await expect(page.getByText("Nothing was spent in this window")).toBeVisible();
    await page.goto("/spend?from=last-week");
    await expect(page.getByText("This spend address is not valid.")).toBeVisible();
  });

  test("the screen reads well in both themes", async ({ page }) => {
    await page.goto("/spend");
    for (const theme of ["light", "dark"] as const) {
      await page.context().addCookies([{ name: THEME_COOKIE, value: theme, url: page.url() }]);
      await page.reload();
      await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
      await expect(page.getByTestId("spend-chart").getByRole("img")).toBeVisible();
      expect(await blockingViolations(page, "main"), `the spend screen, ${theme}`).toEqual([]);
      if (theme === "dark") {
        await page.screenshot({ path: "docs/screenshots/spend-dark.png", fullPage: true });
      }
    }
  });
});

test.describe("as a reviewer", () => {
  test.use(asRole("reviewer"));

  test("the screen and its export are refused", async ({ page }) => {
    await page.goto("/spend");
    await expect(
      page.getByRole("heading", { name: "Your role may not open this page" }),
    ).toBeVisible();
    await expect(page.getByRole("link", { name: "Spend", exact: true })).toHaveCount(0);
    const exported = await page.request.get("/api/spend/export?format=csv");
    expect(exported.status()).toBe(403);
    const screen = await page.request.get("/api/screens/spend");
    expect(screen.status()).toBe(403);
  });
});
