// connectMcp: an MCP server's tools as durable effects. Lists the server's tools once, checks the
// team's per-tool configuration against them, and returns one of our Tools for each, sharing a
// connection that reconnects on its own when the child or the session goes away.
import type { Tool as McpToolInfo } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import type { JsonValue } from "../../domain/json";
import type { Tool } from "../define";
import { type ConnectMcpOptions, type McpToolConfig, parseConnectOptions } from "./config";
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

export type McpConnectionHandle<N extends string = string> = {
  /** By our tool name: spread into defineAgent's `tools`. */
  tools: Record<N, McpTool>;
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

/** The characters of a string type, as a union ("ab" → "a" | "b"). */
type CharsOf<S extends string> = S extends `${infer H}${infer R}` ? H | CharsOf<R> : never;
type SnakeChar = CharsOf<"abcdefghijklmnopqrstuvwxyz0123456789_">;
type AllSnake<S extends string> = S extends `${infer H}${infer R}`
  ? H extends SnakeChar
    ? AllSnake<R>
    : false
  : true;
/**
 * `<server>_<tool>` when that is already snake_case (what snakeCase leaves as it is); any other
 * spelling is typed as a plain string rather than guessed at.
 */
type SnakeName<S extends string> =
  AllSnake<S> extends true
    ? S extends `_${string}` | `${string}_` | `${string}__${string}`
      ? string
      : S
    : string;
/** A tool's name on our side: its `as`, else `<server>_<tool>`. */
type OurName<S extends string, T extends string, C> = C extends { [K in T]: { as: infer A } }
  ? A extends string
    ? A
    : string
  : SnakeName<`${S}_${T}`>;
/**
 * The tools' names as types when `only` lists them (a const tuple): `ctx.tool` and the agent's
 * tools then refuse a misspelt name at compile time. Without `only` the server decides at run
 * time, so the names are strings.
 */
export type McpToolNames<S extends string, C, O> = O extends readonly (infer T extends string)[]
  ? string extends T | S
    ? string
    : T extends string
      ? OurName<S, T, C>
      : never
  : string;

export async function connectMcp<
  const S extends string,
  const C extends Record<string, McpToolConfig> = Record<never, McpToolConfig>,
  const O extends readonly string[] | undefined = undefined,
>(
  options: ConnectMcpOptions & { name: S; tools?: C; only?: O },
): Promise<McpConnectionHandle<McpToolNames<S, C, O>>> {
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
