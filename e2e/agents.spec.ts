// The agents screen as a team sees it after its own worker started: the agent its worker
// published (code version, tools and what each may do, a tool of a real MCP server over stdio),
// the MCP server, and the worker process, stopped once it is done.
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { defineAgent } from "../lib/sdk/define";
import { connectMcp } from "../lib/sdk/mcp";
import { enqueue, expect, randomWord, refundAgent, runTasks, test } from "./fixtures";

const fixture = fileURLToPath(new URL("../lib/sdk/mcp/fixtures/stdio-server.mjs", import.meta.url));

test("the agents screen shows what a worker published: tools, flags, the MCP server and the worker", async ({
  page,
  db,
}) => {
  const word = randomWord(6);
  const name = `e2e-agents-${word}`;
  const log = path.join(mkdtempSync(path.join(tmpdir(), "e2e-agents-")), "calls.jsonl");
  const desk = await connectMcp({
    name: "helpdesk",
    transport: { command: process.execPath, args: [fixture], env: { TICKETS_LOG: log } },
    only: ["create_ticket"],
  });
  const refunds = refundAgent(`${name}-refunds`);
  const agent = defineAgent({
    name,
    version: `2026.12.${word}`,
    input: z.object({ orderId: z.string(), amountCents: z.number().int() }),
    tools: { ...refunds.tools, ...desk.tools },
    run: async (ctx, input) => {
      const ticket = await ctx.tool("helpdesk_create_ticket", {
        title: `refund ${input.orderId}`,
      });
      const refund = await ctx.tool("issue_refund", input);
      return { ticket, refund };
    },
  });
  try {
    const id = await enqueue(db, name, { orderId: `o-${word}`, amountCents: 1_200 });
    await runTasks([agent], [id], ["succeeded"]);
  } finally {
    await desk.close();
  }

  await page.goto("/agents");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Agents");
  const row = page.locator(`tr[data-agent="${name}"]`);
  await expect(row).toContainText(`2026.12.${word}`);
  await expect(row).toContainText("No live worker");
  await expect(row.getByRole("cell").nth(2)).toHaveText("2");

  // The agent's own section, reached from its name: each tool with its source and flags.
  await row.getByRole("link", { name }).click();
  const section = page.getByRole("region", { name, exact: true });
  await expect(section).toBeInViewport();
  const mcpTool = section.locator('tr[data-tool="helpdesk_create_ticket"]');
  await expect(mcpTool).toContainText("MCP · helpdesk");
  const refundTool = section.locator('tr[data-tool="issue_refund"]');
  await expect(refundTool).toContainText("The agent's code");
  await expect(refundTool).toContainText("Needs approval");
  await expect(refundTool).toContainText("providerToken");
  await expect(section.getByRole("link", { name: `Tasks of ${name}` })).toHaveAttribute(
    "href",
    `/tasks?agent=${name}`,
  );
  mkdirSync("docs/screenshots", { recursive: true });
  await section.screenshot({ path: "docs/screenshots/agents.png" });
  await section.getByText("Input schema").click();
  await expect(section.locator("pre")).toContainText('"amountCents"');

  // The MCP server, its tool as the agent calls it and as the server names it.
  const mcp = page.locator('tr[data-mcp-server="helpdesk"]');
  await expect(mcp).toContainText("stdio");
  await expect(mcp).toContainText(`helpdesk_create_ticket ← create_ticket (${name})`);

  // The worker that ran it, stopped after the run.
  const worker = page
    .getByRole("region", { name: "Workers" })
    .locator("tr", { hasText: name })
    .first();
  await expect(worker).toContainText("Stopped");
});
