// What connectMcp accepts, parsed with zod so a mistyped option fails at connect with its path,
// not at the first call in production.
import { z } from "zod";
import type { JsonValue } from "../../domain/json";
import type { MoneyArgs } from "../../domain/money";
import { rateLimitSchema } from "../../domain/rate-limit";
import type { ReconcileOutcome, ToolRateLimit } from "../define";

/** The arguments of an MCP tool call: a JSON object, as its input schema describes it. */
export type McpArgs = { [key: string]: JsonValue };

/** What a tool's `isError` result means for the effect. */
export type McpToolErrorVerdict =
  /** The tool did not act: the effect may run again with the same key (the default). */
  | "retry"
  /** The tool did not act and never will for these arguments: dead-letter the task. */
  | "permanent"
  /** The tool may have acted before failing: reconcile, resend or ask a person. */
  | "unknown";

export type McpToolErrorInfo = {
  tool: string;
  /** The text parts of the result, joined. */
  text: string;
  content: JsonValue;
  structuredContent: JsonValue | null;
};

export type McpReconcileContext = {
  signal: AbortSignal;
  /** Calls another tool of the same server (e.g. a lookup), without a key; `isError` throws. */
  callTool(tool: string, args: McpArgs): Promise<JsonValue>;
};

/** Per MCP tool: what our Tool adds to what the server says about it. */
export type McpToolConfig = {
  /** Our tool's name, instead of `<server>_<tool>` in snake_case. */
  as?: string;
  /** The part of the arguments that identifies what is done; the whole arguments by default. */
  intent?(args: McpArgs): JsonValue;
  requiresApproval?(args: McpArgs): boolean;
  money?: boolean | MoneyArgs;
  sensitive?: readonly string[];
  /** The server honours the `agent-ledger/idempotency-key` in the request's `_meta`. */
  providerIdempotent?: boolean;
  dedupWindowMs?: number;
  onPayloadMismatch?: "return-first" | "dead-letter";
  /** At most `limit` calls in any `periodMs` across all workers (per `key(args)` when given). */
  rateLimit?: ToolRateLimit<McpArgs>;
  reconcile?(
    key: string,
    args: McpArgs,
    ctx: McpReconcileContext,
  ): Promise<ReconcileOutcome<JsonValue>>;
  /** How an `isError` result is taken: "retry" unless said otherwise. */
  onToolError?: McpToolErrorVerdict | ((error: McpToolErrorInfo) => McpToolErrorVerdict);
};

export type McpTransport =
  | { command: string; args?: string[]; env?: Record<string, string>; cwd?: string }
  | { url: string; headers?: Record<string, string> };

export type ConnectMcpOptions = {
  /** Names the server in tool names (`<name>_<tool>`), the catalog and the dashboard. */
  name: string;
  transport: McpTransport;
  tools?: Record<string, McpToolConfig>;
  /** Only these MCP tools become tools; every tool the server lists otherwise. */
  only?: readonly string[];
  /** How long one call may take before its outcome counts as unknown; 60 s by default. */
  timeoutMs?: number;
};

const fn = <T>(what: string) =>
  z.custom<T>((v) => typeof v === "function", { message: `${what} must be a function` });

const toolConfigSchema = z.strictObject({
  as: z.string().optional(),
  intent: fn<McpToolConfig["intent"]>("intent").optional(),
  requiresApproval: fn<McpToolConfig["requiresApproval"]>("requiresApproval").optional(),
  money: z
    .union([z.boolean(), z.strictObject({ amount: z.string(), currency: z.string() })])
    .optional(),
  sensitive: z.array(z.string()).readonly().optional(),
  providerIdempotent: z.boolean().optional(),
  dedupWindowMs: z.number().int().positive().optional(),
  onPayloadMismatch: z.enum(["return-first", "dead-letter"]).optional(),
  rateLimit: rateLimitSchema
    .extend({ key: fn<ToolRateLimit<McpArgs>["key"]>("rateLimit.key").optional() })
    .strict()
    .optional(),
  reconcile: fn<McpToolConfig["reconcile"]>("reconcile").optional(),
  onToolError: z
    .union([
      z.enum(["retry", "permanent", "unknown"]),
      fn<(error: McpToolErrorInfo) => McpToolErrorVerdict>("onToolError"),
    ])
    .optional(),
});

const transportSchema = z.union([
  z.strictObject({
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
  }),
  z.strictObject({
    url: z.url({ protocol: /^https?$/ }),
    headers: z.record(z.string(), z.string()).optional(),
  }),
]);

export const connectMcpOptionsSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z][A-Za-z0-9_-]*$/, "a letter, then letters, digits, _ or -"),
  transport: transportSchema,
  tools: z.record(z.string(), toolConfigSchema).default({}),
  only: z.array(z.string()).readonly().optional(),
  timeoutMs: z.number().int().positive().default(60_000),
});

export function parseConnectOptions(options: ConnectMcpOptions) {
  const parsed = connectMcpOptionsSchema.safeParse(options);
  if (!parsed.success) {
    throw new Error(`connectMcp: invalid options:\n${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}
