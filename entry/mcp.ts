// `agent-ledger/mcp`: the tools of an MCP server (stdio or streamable HTTP) as durable effects.
export * from "../lib/sdk/mcp/index";
