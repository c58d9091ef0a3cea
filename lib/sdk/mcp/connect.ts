// connectMcp: an MCP server's tools as durable effects. Lists the server's tools once, checks the
// team's per-tool configuration against them, and returns one of our Tools for each, sharing a
// connection that reconnects on its own when the child or the session goes away.
import type { Tool as McpToolInfo } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import type { JsonValue } from "../../domain/json";
import type { Tool } from "../define";
import { type ConnectMcpOptions, parseConnectOptions } from "./config";
import { McpConnection } from "./connection";
import { mcpTool } from "./tool";

/** Its arguments are checked by the server's JSON Schema at run time, so typed as unknown here. */
export type McpTool = Tool<z.ZodType, JsonValue>;

export type McpServerHandle = {
  name: string;
  transport: "stdio" | "http";
  /** What the server calls itself at initialize, when it says. */
  info: { name: string; version: string } | null;
  instructions: string | null;
  /** The names of every tool the server lists, ours or not. */
  tools: string[];
};

export type McpConnectionHandle = {
  /** By our tool name: spread into defineAgent's `tools`. */
  tools: Record<string, McpTool>;
  server: McpServerHandle;
  /** Ends the connection (stops a stdio child). Calls after it fail without acting. */
  close(): Promise<void>;
};

/** Refuses configuration that names tools the server does not have, listing those it has. */
function checkNames(server: string, listed: McpToolInfo[], named: string[], what: string): void {
  const have = new Set(listed.map((t) => t.name));
  const missing = named.filter((n) => !have.has(n));
  if (missing.length > 0) {
    throw new Error(
      `connectMcp ${server}: ${what} ${missing.map((n) => `"${n}"`).join(", ")} but the server has no such tool; it has ${[...have].map((n) => `"${n}"`).join(", ") || "no tools"}`,
    );
  }
}

export async function connectMcp(options: ConnectMcpOptions): Promise<McpConnectionHandle> {
  const opts = parseConnectOptions(options);
  const conn = new McpConnection(opts.name, opts.transport, opts.timeoutMs);
  try {
    const listed = await conn.listTools().catch((err: unknown) => {
      const where = "command" in opts.transport ? opts.transport.command : opts.transport.url;
      throw new Error(
        `connectMcp ${opts.name}: could not list the tools of ${where}: ${err instanceof Error ? err.message : String(err)}`,
        { cause: err },
      );
    });
    checkNames(opts.name, listed, Object.keys(opts.tools), "configures");
    if (opts.only) {
      checkNames(opts.name, listed, [...opts.only], "`only` names");
      const left = Object.keys(opts.tools).filter((n) => !opts.only?.includes(n));
      if (left.length > 0) {
        throw new Error(
          `connectMcp ${opts.name}: configures ${left.map((n) => `"${n}"`).join(", ")} but \`only\` leaves it out; add it to \`only\` or drop its configuration`,
        );
      }
    }
    const chosen = opts.only ? listed.filter((t) => opts.only?.includes(t.name)) : listed;
    const tools: Record<string, McpTool> = {};
    for (const info of chosen) {
      const tool = mcpTool(conn, info, opts.tools[info.name] ?? {});
      const clash = tools[tool.name];
      if (clash) {
        throw new Error(
          `connectMcp ${opts.name}: "${info.name}" and "${clash.origin?.tool}" both become tool ${tool.name}; give one an \`as\``,
        );
      }
      tools[tool.name] = tool;
    }
    const client = await conn.connect();
    const version = client.getServerVersion();
    return {
      tools,
      server: {
        name: opts.name,
        transport: conn.kind,
        info: version ? { name: version.name, version: version.version } : null,
        instructions: client.getInstructions() ?? null,
        tools: listed.map((t) => t.name),
      },
      close: () => conn.close(),
    };
  } catch (err) {
    await conn.close();
    throw err;
  }
}
