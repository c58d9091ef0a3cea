// The agents screen's read against a real database: the catalog as workers published it, how
// many live workers run each agent (a stopped one, one silent for longer than a lease and the
// web server's alert worker do not count), the MCP servers a tool comes from, and the worker
// list (live first, a day back, never the alert worker). Rendered, a tool shows its flags.
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentDetails, McpServersTable } from "../../../components/agents/agent-catalog";
import { setUpTestDatabase } from "../../../db/testing/database";
import { publishCatalog } from "../../../worker/runtime/catalog";
import { testTokenViewer, testViewer } from "../../auth/testing";
import { defineAgent, defineTool } from "../../sdk/define";
import { getAgentsScreen } from "./get-agents-screen";

const t = await setUpTestDatabase("agents_screen");
const LEASE_MS = 30_000;

const pay = defineTool({
  name: "pay",
  input: z.object({ cents: z.number(), currency: z.string(), card: z.string() }),
  intent: (a) => a,
  money: { amount: "cents", currency: "currency" },
  sensitive: ["card"],
  requiresApproval: (a) => a.cents > 100,
  execute: async () => ({ ok: true }),
});
const ticket = {
  ...defineTool({
    name: "desk_open",
    input: z.object({ title: z.string() }),
    intent: (a) => a,
    execute: async () => ({ id: 1 }),
  }),
  origin: { kind: "mcp" as const, server: "desk", tool: "open", transport: "stdio" as const },
};
const payer = defineAgent({
  name: "payer",
  version: "1.2.0",
  input: z.object({ cents: z.number() }),
  tools: { pay, desk_open: ticket },
  run: async () => null,
});

async function worker(id: string, agents: string[], extra: string) {
  await t.pool.query(
    `insert into workers (id, host, pid, role, agents, last_seen_at, stopped_at)
     values ($1, 'box', 1, $2, $3, ${extra})`,
    [id, id.startsWith("alerts") ? "alerts" : "worker", agents],
  );
}

describe("getAgentsScreen", () => {
  it("lists what the workers published, the live workers per agent and the MCP servers", async () => {
    await publishCatalog(t.pool, [payer], "w-live");
    await worker("w-live", ["payer"], "now(), null");
    await worker(
      "w-stopped",
      ["payer"],
      "now() - interval '1 minute', now() - interval '1 minute'",
    );
    await worker("w-silent", ["payer"], "now() - interval '2 minutes', null");
    await worker("w-old", ["payer"], "now() - interval '2 days', now() - interval '2 days'");
    await worker("alerts-web", ["alert-delivery"], "now(), null");

    const screen = await getAgentsScreen(t.pool, testViewer("ops"), { leaseMs: LEASE_MS });
    const agent = screen.agents.find((a) => a.name === "payer");
    expect(agent).toMatchObject({ version: "1.2.0", publishedBy: "w-live", liveWorkers: 1 });
    expect(screen.workers.map((w) => [w.id, w.live])).toEqual([
      ["w-live", true],
      ["w-stopped", false],
      ["w-silent", false],
    ]);
    expect(screen.workersTotal).toBe(3);
    expect(screen.mcpServers).toEqual([
      {
        name: "desk",
        transport: "stdio",
        tools: [{ agent: "payer", name: "desk_open", tool: "open" }],
      },
    ]);

    // What a reviewer reads before approving: the money tool's flags and its redacted argument.
    if (!agent) throw new Error("payer is not listed");
    const html = renderToStaticMarkup(AgentDetails({ agent })).replaceAll("<!-- -->", "");
    expect(html).toContain("Moves money · two reviewers");
    expect(html).toContain("Needs approval");
    expect(html).toContain("card");
    expect(html).toContain("MCP · desk");
    expect(html).toContain('href="/tasks?agent=payer"');
    expect(renderToStaticMarkup(McpServersTable({ servers: screen.mcpServers }))).toContain(
      "stdio (a local process)",
    );
  });

  it("is refused without tasks:read", async () => {
    await expect(
      getAgentsScreen(t.pool, testTokenViewer(["metrics:read"]), { leaseMs: LEASE_MS }),
    ).rejects.toThrow();
    await expect(getAgentsScreen(t.pool, null, { leaseMs: LEASE_MS })).rejects.toThrow();
  });
});
