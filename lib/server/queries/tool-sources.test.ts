// Where an agent's tools come from, as the workers published them: an MCP tool carries its server
// and transport to the agents list (and /api/v1/agents) and to the task page's effect markers;
// the team's own tools, and rows from workers that predate sources, carry none.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolSourceMarker } from "../../../components/tasks/effects-list";
import { setUpTestDatabase } from "../../../db/testing/database";
import { publishCatalog } from "../../../worker/runtime/catalog";
import { testViewer } from "../../auth/testing";
import { defineAgent, defineTool } from "../../sdk/define";
import { listAgents } from "./list-agents";
import { readToolSources } from "./tool-sources";

const t = await setUpTestDatabase("tool_sources");

const createTicket = defineTool({
  name: "tickets_create_ticket",
  input: z.object({ title: z.string() }),
  intent: (a) => a,
  execute: async () => ({ id: 1 }),
  origin: { kind: "mcp", server: "tickets", tool: "create_ticket", transport: "stdio" },
});
const note = defineTool({
  name: "note",
  input: z.object({ text: z.string() }),
  intent: (a) => a,
  execute: async () => ({ ok: true }),
});
const helpdesk = defineAgent({
  name: "helpdesk",
  input: z.object({ title: z.string() }),
  tools: { tickets_create_ticket: createTicket, note },
  run: async () => null,
});

describe("tool sources", () => {
  it("publishes an MCP tool's server and transport, read back by the agents list", async () => {
    await publishCatalog(t.pool, [helpdesk], "worker-1");
    const agent = (await listAgents(t.pool, testViewer("ops"))).find((a) => a.name === "helpdesk");
    expect(agent?.tools.map((x) => [x.name, x.source])).toEqual([
      [
        "tickets_create_ticket",
        { kind: "mcp", server: "tickets", tool: "create_ticket", transport: "stdio" },
      ],
      ["note", null],
    ]);
    expect(await readToolSources(t.pool, "helpdesk")).toEqual({
      tickets_create_ticket: {
        kind: "mcp",
        server: "tickets",
        tool: "create_ticket",
        transport: "stdio",
      },
    });
  });

  it("reads no source from an agent no worker published, or a source it cannot read", async () => {
    expect(await readToolSources(t.pool, "nobody")).toEqual({});
    const tool = {
      name: "send",
      description: null,
      money: false,
      providerIdempotent: false,
      reconcile: false,
      requiresApproval: false,
      sensitive: [],
    };
    await t.pool.query(
      `insert into agent_catalog (name, input_schema, tools, published_by) values ('future', '{}', $1, 'w')`,
      [JSON.stringify([{ ...tool, source: { kind: "grpc", server: "x" } }])],
    );
    expect(await readToolSources(t.pool, "future")).toEqual({});
    const agent = (await listAgents(t.pool, testViewer("ops"))).find((a) => a.name === "future");
    expect(agent?.tools).toEqual([{ ...tool, source: null, rateLimit: null }]);
  });

  it("marks an MCP tool 'MCP · <server>' on the task page, and the team's own not at all", () => {
    const html = renderToStaticMarkup(
      createElement(ToolSourceMarker, {
        source: { kind: "mcp", server: "tickets", tool: "create_ticket", transport: "http" },
      }),
    );
    expect(html).toContain("MCP · tickets");
    expect(html).toContain('title="Tool create_ticket of MCP server tickets (http)"');
    expect(renderToStaticMarkup(createElement(ToolSourceMarker, { source: undefined }))).toBe("");
  });
});
