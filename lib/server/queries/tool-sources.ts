// Which of an agent's tools come from elsewhere (an MCP server), as its workers published them,
// so a screen that names a tool can mark it ("MCP · tickets").
import type pg from "pg";
import { catalogToolsOf, type ToolSourceDto } from "./list-agents";

/** By tool name, only the tools that have a source; empty when no worker published the agent. */
export type ToolSourcesDto = Record<string, ToolSourceDto>;

export async function readToolSources(pool: pg.Pool, agent: string): Promise<ToolSourcesDto> {
  const { rows } = await pool.query<{ tools: unknown }>({
    name: "tool_sources_of_agent",
    text: "select tools from agent_catalog where name = $1",
    values: [agent],
  });
  const sources: ToolSourcesDto = {};
  for (const tool of catalogToolsOf(rows[0]?.tools ?? [])) {
    if (tool.source) sources[tool.name] = tool.source;
  }
  return sources;
}
