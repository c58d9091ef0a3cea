// One MCP tool as one of our Tools: its name, its input schema from the server's JSON Schema, its
// intent (the whole arguments unless the team says), and an execute that sends the effect's key
// in the request's _meta and turns an `isError` result into the error the runtime acts on.
import type { CallToolResult, Tool as McpToolInfo } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { JSONSchema } from "zod/v4/core";
import { type JsonValue, toJsonValue } from "../../domain/json";
import { defineTool, type Tool } from "../define";
import { EffectNotPerformedError } from "../errors";
import type { McpArgs, McpToolConfig, McpToolErrorInfo, McpToolErrorVerdict } from "./config";
import { type McpConnection, McpOutcomeUnknownError } from "./connection";

/** An `isError` result the team says (or the default says) the tool did not act on. */
export class McpToolError extends EffectNotPerformedError {
  override name = "McpToolError";
  constructor(
    readonly info: McpToolErrorInfo,
    retryable: boolean,
  ) {
    super(`MCP tool ${info.tool} failed: ${info.text || "(no text)"}`, { retryable });
  }
}

/** `createTicket`, `create-ticket` and `Create Ticket` all become `create_ticket`. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
}

const argsSchema = z.record(z.string(), z.json());

/**
 * The server's JSON Schema as zod, so bad arguments are refused before anything is claimed, and
 * a model offered the tool sees the same schema (in or out, no transform in between). A schema
 * zod cannot read is checked structurally only (a JSON object); the server checks the rest.
 */
export function inputSchemaOf(jsonSchema: McpToolInfo["inputSchema"]): z.ZodType {
  try {
    // fromJSONSchema checks the schema itself and throws on what it cannot read.
    if (!isSchemaObject(jsonSchema)) return argsSchema;
    return z.fromJSONSchema(jsonSchema);
  } catch {
    return argsSchema;
  }
}

/** Arguments the input schema accepted, as the JSON object a tools/call carries. */
function argsOf(tool: string, value: unknown): McpArgs {
  const parsed = argsSchema.safeParse(value);
  if (!parsed.success) {
    throw new EffectNotPerformedError(`MCP tool ${tool}: arguments must be a JSON object`, {
      retryable: false,
    });
  }
  return parsed.data;
}

function isSchemaObject(value: unknown): value is JSONSchema.JSONSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The result as JSON: the structured content when the tool gives it, its content otherwise. */
export function resultJson(tool: string, result: CallToolResult): JsonValue {
  return toJsonValue(result.structuredContent ?? result.content, `${tool} result`);
}

function errorInfo(tool: string, result: CallToolResult): McpToolErrorInfo {
  const text = result.content
    .flatMap((part) => (part.type === "text" ? [part.text] : []))
    .join("\n");
  return {
    tool,
    text,
    content: toJsonValue(result.content, `${tool} error content`),
    structuredContent:
      result.structuredContent === undefined
        ? null
        : toJsonValue(result.structuredContent, `${tool} error content`),
  };
}

/** What an `isError` result is thrown as, by the tool's `onToolError`. */
export function toolError(
  tool: string,
  result: CallToolResult,
  onToolError: McpToolConfig["onToolError"],
): Error {
  const info = errorInfo(tool, result);
  const verdict: McpToolErrorVerdict =
    typeof onToolError === "function" ? onToolError(info) : (onToolError ?? "retry");
  if (verdict === "unknown") {
    return new McpOutcomeUnknownError(
      `MCP tool ${tool} failed after it may have acted: ${info.text}`,
    );
  }
  return new McpToolError(info, verdict === "retry");
}

export function mcpTool(
  conn: McpConnection,
  info: McpToolInfo,
  config: McpToolConfig,
): Tool<z.ZodType, JsonValue> {
  const name = config.as ?? snakeCase(`${conn.name}_${info.name}`);
  const call = async (args: McpArgs, key: string | undefined, signal: AbortSignal) => {
    const result = await conn.callTool(info.name, args, { key, signal });
    if (result.isError) throw toolError(info.name, result, config.onToolError);
    return resultJson(info.name, result);
  };
  const { intent, reconcile, requiresApproval, rateLimit } = config;
  return defineTool({
    name,
    description: info.description ?? info.title ?? undefined,
    input: inputSchemaOf(info.inputSchema),
    intent: (args) => (intent ? intent(argsOf(info.name, args)) : argsOf(info.name, args)),
    execute: (args, { idempotencyKey, signal }) =>
      call(argsOf(info.name, args), idempotencyKey, signal),
    ...(reconcile
      ? {
          reconcile: (key, args, { signal }) =>
            reconcile(key, argsOf(info.name, args), {
              signal,
              callTool: (tool, a) =>
                conn.callTool(tool, a, { signal }).then((result) => {
                  if (result.isError) throw toolError(tool, result, "retry");
                  return resultJson(tool, result);
                }),
            }),
        }
      : {}),
    ...(requiresApproval
      ? { requiresApproval: (args) => requiresApproval(argsOf(info.name, args)) }
      : {}),
    providerIdempotent: config.providerIdempotent,
    dedupWindowMs: config.dedupWindowMs,
    sensitive: config.sensitive,
    onPayloadMismatch: config.onPayloadMismatch,
    money: config.money,
    ...(rateLimit
      ? {
          rateLimit: {
            limit: rateLimit.limit,
            periodMs: rateLimit.periodMs,
            ...(rateLimit.key
              ? { key: (args: unknown) => rateLimit.key?.(argsOf(info.name, args)) ?? "" }
              : {}),
          },
        }
      : {}),
    origin: { kind: "mcp", server: conn.name, tool: info.name, transport: conn.kind },
  });
}
