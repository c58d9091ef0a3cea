// agent-ledger/mcp: the tools of an MCP server as durable effects, intent and approval per tool.
export type {
  ConnectMcpOptions,
  McpArgs,
  McpReconcileContext,
  McpToolConfig,
  McpToolErrorInfo,
  McpToolErrorVerdict,
  McpTransport,
} from "./config";
export {
  connectMcp,
  type McpConnectionHandle,
  type McpServerHandle,
  type McpTool,
  type McpToolNames,
} from "./connect";
export { IDEMPOTENCY_KEY_META, McpOutcomeUnknownError } from "./connection";
export { McpToolError } from "./tool";
