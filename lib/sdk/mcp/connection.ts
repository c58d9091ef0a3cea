// One MCP server as the runtime needs it: connected on first use and again after the child died
// or the HTTP session was dropped, and every failure of a call sorted by what it says about the
// provider. A call that certainly never reached the server throws EffectNotPerformedError (the
// same key may act again); one that may have reached it throws McpOutcomeUnknownError, which the
// runtime takes through its unknown-outcome path (reconcile, resend, or a person).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  ErrorCode,
  McpError,
  type Tool as McpToolInfo,
} from "@modelcontextprotocol/sdk/types.js";
import type { JsonValue } from "../../domain/json";
import { EffectNotPerformedError } from "../errors";
import type { McpTransport } from "./config";

/** The `_meta` field of a tools/call request that carries the effect's idempotency key. */
export const IDEMPOTENCY_KEY_META = "agent-ledger/idempotency-key";

/**
 * The call may have reached the server and its answer was lost (the child died, the connection
 * closed, the request timed out or was aborted): the runtime treats the effect's outcome as unknown.
 */
export class McpOutcomeUnknownError extends Error {
  override name = "McpOutcomeUnknownError";
}

// JSON-RPC errors a server answers before it runs anything: the request itself was refused.
const REFUSED = new Set<number>([
  ErrorCode.ParseError,
  ErrorCode.InvalidRequest,
  ErrorCode.MethodNotFound,
  ErrorCode.InvalidParams,
]);

type Open = { client: Client; ready: Promise<Client> };

export type CallOptions = { key?: string; signal?: AbortSignal };

export class McpConnection {
  #open: Open | undefined;
  #closed = false;

  constructor(
    readonly name: string,
    readonly transport: McpTransport,
    private readonly timeoutMs: number,
  ) {}

  get kind(): "stdio" | "http" {
    return "command" in this.transport ? "stdio" : "http";
  }

  /** The connected client, connecting (again) when there is none. */
  connect(): Promise<Client> {
    if (this.#closed) {
      return Promise.reject(new Error(`MCP server ${this.name}: the connection was closed`));
    }
    if (!this.#open) {
      const client = new Client({ name: "agent-ledger", version: "1" });
      const open: Open = { client, ready: client.connect(this.#newTransport()).then(() => client) };
      // The child exited or the transport closed: the next call connects afresh.
      client.onclose = () => this.#forget(open);
      open.ready.catch(() => this.#forget(open));
      this.#open = open;
    }
    return this.#open.ready;
  }

  /** Every tool the server lists, across pages. */
  async listTools(): Promise<McpToolInfo[]> {
    const client = await this.connect();
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  }

  /** tools/call with the key in `_meta`; a failure thrown as what it says about the provider. */
  async callTool(
    tool: string,
    args: Record<string, JsonValue>,
    opts: CallOptions = {},
  ): Promise<CallToolResult> {
    return this.#call(tool, args, opts, true);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const open = this.#open;
    this.#open = undefined;
    if (open) await open.client.close();
  }

  async #call(
    tool: string,
    args: Record<string, JsonValue>,
    opts: CallOptions,
    mayRetry: boolean,
  ): Promise<CallToolResult> {
    const what = `MCP ${this.name}.${tool}`;
    let client: Client;
    try {
      client = await this.connect();
    } catch (err) {
      throw new EffectNotPerformedError(`${what}: could not connect: ${messageOf(err)}`, {
        cause: err,
      });
    }
    try {
      // client.request, not client.callTool: callTool checks structuredContent against the
      // tool's outputSchema after the tool acted and would throw as if the server refused.
      return await client.request(
        {
          method: "tools/call",
          params: {
            name: tool,
            arguments: args,
            ...(opts.key ? { _meta: { [IDEMPOTENCY_KEY_META]: opts.key } } : {}),
          },
        },
        CallToolResultSchema,
        { signal: opts.signal, timeout: this.timeoutMs },
      );
    } catch (err) {
      if (neverSent(err)) {
        // The session is gone (a restarted HTTP server) or the client closed before sending:
        // nothing reached the server, so one fresh connection may carry the same call.
        await this.#drop(client);
        if (mayRetry) return this.#call(tool, args, opts, false);
        throw new EffectNotPerformedError(`${what}: ${messageOf(err)}`, { cause: err });
      }
      if (err instanceof McpError && REFUSED.has(err.code)) {
        throw new EffectNotPerformedError(`${what}: the server refused the call: ${err.message}`, {
          retryable: false,
          cause: err,
        });
      }
      if (connectionRefused(err)) {
        await this.#drop(client);
        throw new EffectNotPerformedError(`${what}: ${messageOf(err)}`, { cause: err });
      }
      if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
        await this.#drop(client);
      }
      throw new McpOutcomeUnknownError(
        `${what}: no answer, the server may have acted: ${messageOf(err)}`,
        { cause: err },
      );
    }
  }

  #newTransport(): Transport {
    const t = this.transport;
    if ("command" in t) {
      return new StdioClientTransport({ command: t.command, args: t.args, env: t.env, cwd: t.cwd });
    }
    return new StreamableHTTPClientTransport(new URL(t.url), {
      requestInit: t.headers ? { headers: t.headers } : undefined,
    });
  }

  #forget(open: Open): void {
    if (this.#open === open) this.#open = undefined;
  }

  async #drop(client: Client): Promise<void> {
    if (this.#open?.client === client) this.#open = undefined;
    await client.close().catch(() => {});
  }
}

/** The request never left: an HTTP session the server no longer knows, or no transport at all. */
function neverSent(err: unknown): boolean {
  if (err instanceof StreamableHTTPError) return err.code === 404;
  return err instanceof Error && err.message === "Not connected";
}

/** The TCP connection was refused: the request cannot have been delivered. */
function connectionRefused(err: unknown): boolean {
  const cause = err instanceof Error ? err.cause : undefined;
  return (
    typeof cause === "object" && cause !== null && "code" in cause && cause.code === "ECONNREFUSED"
  );
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
