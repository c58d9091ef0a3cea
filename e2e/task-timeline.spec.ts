// The task page's Timeline card on a task a real worker ran: its tool failed (not performed) on
// attempt 1 and succeeded on attempt 2, so the card shows queued → run 1 → retry wait → run 2 →
// succeeded, as a bar whose colours stand out from the card in both themes and as a table.
import { mkdirSync } from "node:fs";
import { z } from "zod";
import { THEME_COOKIE } from "../components/theme/theme";
import { defineAgent, defineTool } from "../lib/sdk/define";
import { EffectNotPerformedError } from "../lib/sdk/errors";
import { blockingViolations } from "./axe";
import { asRole, enqueue, expect, randomWord, runTasks, test } from "./fixtures";

test.use(asRole("reviewer"));

function retryingAgent(name: string) {
  let calls = 0;
  const charge = defineTool({
    name: "charge_card",
    input: z.object({ orderId: z.string() }),
    intent: (a) => ({ orderId: a.orderId }),
    execute: async (a) => {
      calls += 1;
      await new Promise((r) => setTimeout(r, 150));
      if (calls === 1) throw new EffectNotPerformedError("payments API 502 before acting");
      return { chargeId: `ch_${a.orderId}` };
    },
  });
  return defineAgent({
    name,
    input: z.object({ orderId: z.string() }),
    tools: { charge_card: charge },
    run: async (ctx, input) => {
      await ctx.step("look-up-order", async () => {
        await new Promise((r) => setTimeout(r, 200));
        return { orderId: input.orderId };
      });
      return ctx.tool("charge_card", input);
    },
  });
}

/** WCAG's contrast ratio of two colours as the browser paints them (any CSS colour syntax). */
async function contrasts(page: import("@playwright/test").Page): Promise<number[]> {
  return page.evaluate(() => {
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = 1;
    const ctx = canvas.getContext("2d", { willReadFrequently: true });
    if (!ctx) throw new Error("no canvas");
    const luminance = (color: string) => {
      ctx.clearRect(0, 0, 1, 1);
      ctx.fillStyle = color;
      ctx.fillRect(0, 0, 1, 1);
      const [r = 0, g = 0, b = 0] = ctx.getImageData(0, 0, 1, 1).data;
      const lin = (c: number) => {
        const s = c / 255;
        return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
    };
    const card = document.querySelector("#timeline");
    if (!card) throw new Error("no timeline card");
    const surface = luminance(getComputedStyle(card).backgroundColor);
    return [...document.querySelectorAll("[data-timeline-bar] [data-segment]")].map((el) => {
      const fill = luminance(getComputedStyle(el).backgroundColor);
      const [hi, lo] = fill > surface ? [fill, surface] : [surface, fill];
      return (hi + 0.05) / (lo + 0.05);
    });
  });
}

test("the Timeline card shows where a retried task's time went", async ({ page, db }) => {
  const agent = retryingAgent(`e2e-timeline-${randomWord(6)}`);
  const id = await enqueue(
    db,
    agent.name,
    { orderId: `ord_${randomWord(6)}` },
    { maxAttempts: 3, backoffInitialMs: 1_500, backoffMaxMs: 1_500 },
  );
  await runTasks([agent], [id], ["succeeded"]);

  await page.goto(`/tasks/${id}`);
  const card = page.getByRole("region", { name: "Timeline" });
  await expect(card.locator("[data-timeline-summary]")).toContainText(
    /Succeeded after [\d.]+ (ms|s), on attempt 2/,
  );
  const rows = card.locator("[data-segment-row]");
  await expect(rows).toHaveCount(5);
  const expected: [string, string][] = [
    ["Queued", "1"],
    ["Running", "1"],
    ["Retry wait", "1"],
    ["Running", "2"],
    ["Succeeded", "2"],
  ];
  for (const [i, [label, attempt]] of expected.entries()) {
    const cells = rows.nth(i).locator("td");
    await expect(cells.nth(0)).toContainText(label);
    await expect(cells.nth(1)).toHaveText(attempt);
  }
  // Every segment has a readable duration; the first run says it failed.
  for (let i = 0; i < 4; i++) {
    await expect(rows.nth(i).locator("td").nth(3)).toHaveText(/^\d+(\.\d)? (ms|s)$/);
  }
  await expect(rows.nth(1)).toContainText("failed");
  // Each run lists its calls with their durations: the step ran once, the tool twice.
  const calls = card.locator("[data-sub-segment]");
  await expect(calls).toHaveCount(3);
  await expect(calls.nth(0)).toContainText("Step look-up-order (step 1)");
  // The step records when it began: it took its 200 ms and says so.
  await expect(calls.nth(0).locator("td").nth(3)).toHaveText(/^\d+ ms$/);
  await expect(calls.nth(1)).toContainText("Tool call charge_card (step 2), failed");
  await expect(calls.nth(1).locator("td").nth(3)).toHaveText(/^\d+ ms$/);
  await expect(calls.nth(2)).toContainText("Tool call charge_card (step 2)");
  await expect(calls.nth(2).locator("td").nth(1)).toHaveText("2");
  // The bar: one block per segment, in the legend's colours.
  await expect(card.locator("[data-timeline-bar] [data-segment]")).toHaveCount(4);
  await expect(card.getByRole("list", { name: "Legend" }).getByRole("listitem")).toHaveText([
    "Queued",
    "Running",
    "Retry wait",
    "Call, step or wait inside a run",
  ]);
  // The step and the two tool calls drawn inside their runs.
  await expect(card.locator("[data-timeline-bar] [data-call]")).toHaveCount(3);
  await expect(card.locator('[data-timeline-bar] [data-call="step"]')).toHaveCount(1);
  await expect(page.getByRole("navigation", { name: "On this page" })).toContainText("Timeline");

  await card.scrollIntoViewIfNeeded();
  mkdirSync("docs/screenshots", { recursive: true });
  await card.screenshot({ path: "docs/screenshots/task-timeline.png" });

  for (const theme of ["light", "dark"] as const) {
    await page.context().addCookies([{ name: THEME_COOKIE, value: theme, url: page.url() }]);
    await page.reload();
    await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
    await expect(card.locator("[data-timeline-bar] [data-segment]")).toHaveCount(4);
    // Graphics need 3:1 against what surrounds them (WCAG 1.4.11).
    for (const ratio of await contrasts(page)) {
      expect(ratio, `a segment's fill against the card in the ${theme} theme`).toBeGreaterThan(3);
    }
    expect(await blockingViolations(page, "#timeline"), `the ${theme} theme`).toEqual([]);
  }
});
