// The library agent authors use: defineTool, defineAgent and the ctx an agent's run receives.
// Every ctx call is a durable step: journaled, and replayed from the journal on a later attempt.
import type { z } from "zod";
import { AGENT_VERSION_PATTERN } from "../domain/agent-version";
import type { WaitOptions, WaitResult } from "../domain/events";
import type { JsonValue } from "../domain/json";
import type { MoneyArgs } from "../domain/money";
import { type RateLimitSpec, rateLimitSchema } from "../domain/rate-limit";
import { POLICY_BOUNDS, type TaskPolicy } from "../domain/retry-policy";
import { type MissedPolicy, scheduleSpecSchema } from "../domain/schedules";
import type { TaskStatus } from "../domain/task-states";
import { describeIssues } from "../domain/zod-issues";
import type { GenerateTextRequest, GenerateTextResult } from "./generate-text";
import type { ModelResponse } from "./model";

export type ToolExecuteContext = {
  /** sha256 of [taskId, tool, intent]: the same on every attempt and replay of this intent. */
  idempotencyKey: string;
  signal: AbortSignal;
  /**
   * Headers that carry this tool call's trace to an HTTP provider ({traceparent}), empty when
   * tracing is off: spread them into the request's headers (docs/tracing.md). Given by the
   * runtime; absent when a test calls execute itself.
   */
  traceHeaders?: () => Record<string, string>;
};

/** Where a tool comes from when the team did not write it: published to the catalog, shown on the dashboard. */
export type ToolOrigin = {
  kind: "mcp";
  /** The name the team gave the server in connectMcp. */
  server: string;
  /** The tool's name on that server. */
  tool: string;
  transport: "stdio" | "http";
};

const CONCURRENCY_LIMIT_BOUNDS = POLICY_BOUNDS.concurrencyLimit;

export type ReconcileOutcome<R> = { happened: true; result: R } | { happened: false };

// Callbacks are declared as methods so a Tool<specific> is usable where any Tool is expected.
export type ToolDefinition<S extends z.ZodType, R extends JsonValue> = {
  name: string;
  description?: string;
  input: S;
  /** The part of the arguments that identifies what is done (e.g. {to, invoiceId}), not how it is worded. */
  intent(args: z.output<S>): JsonValue;
  execute(args: z.output<S>, ctx: ToolExecuteContext): Promise<R>;
  /** Asks the provider whether the effect with this key already happened. */
  reconcile?(
    key: string,
    args: z.output<S>,
    ctx: Omit<ToolExecuteContext, "idempotencyKey">,
  ): Promise<ReconcileOutcome<R>>;
  /** The provider honours the key itself (an Idempotency-Key header): resending is safe within dedupWindowMs. */
  providerIdempotent?: boolean;
  /** How long the provider remembers a key; past it a resend is never made on its memory alone. */
  dedupWindowMs?: number;
  /**
   * Dotted paths in the arguments (and result) that never reach the ledger. A model's proposed
   * arguments for this tool are journaled redacted too, so a later attempt that replays that
   * decision can only deduplicate the effect, never perform it with the placeholders.
   */
  sensitive?: readonly string[];
  requiresApproval?(args: z.output<S>): boolean;
  onPayloadMismatch?: "return-first" | "dead-letter";
  /**
   * Moves money: approving or replaying it needs two different reviewers. Say which arguments
   * are the amount (in the currency's minor units, e.g. cents) and the ISO 4217 currency, as
   * dotted paths (`{ amount: "amountCents", currency: "currency" }`), and the reviewers of a
   * replay or a bulk action see the amounts it would move, summed per currency; `true` alone
   * marks it without amounts.
   */
  money?: boolean | MoneyArgs;
  /** Set by adapters (agent-ledger/mcp) for a tool another system declares; absent for the team's own. */
  origin?: ToolOrigin;
  /**
   * At most `limit` calls reach the provider in any window of `periodMs`, across all workers
   * (per `key(args)` when given, e.g. per merchant). A call over it waits, never fails. The
   * key is shown in the ledger unless the tool has `sensitive` arguments.
   */
  rateLimit?: ToolRateLimit<z.output<S>>;
};

export type ToolRateLimit<A> = RateLimitSpec & { key?(args: A): string };

export type Tool<S extends z.ZodType = z.ZodType, R extends JsonValue = JsonValue> = ToolDefinition<
  S,
  R
> & { readonly kind: "tool" };

export function defineTool<S extends z.ZodType, R extends JsonValue>(
  def: ToolDefinition<S, R>,
): Tool<S, R> {
  if (!/^[a-z][a-z0-9_]*$/.test(def.name)) {
    throw new Error(`tool name "${def.name}" must be snake_case ([a-z][a-z0-9_]*)`);
  }
  if (def.rateLimit !== undefined) {
    const limit = rateLimitSchema.safeParse(def.rateLimit);
    if (!limit.success) {
      throw new Error(`tool ${def.name}: ${describeIssues(limit.error, "rateLimit.")}`);
    }
  }
  return { ...def, kind: "tool" };
}

type AnyTool = Tool<z.ZodType, JsonValue>;
export type ToolArgs<T> = T extends Tool<infer S, JsonValue> ? z.input<S> : never;
export type ToolResult<T> = T extends Tool<z.ZodType, infer R> ? R : never;

/** A task another task's run enqueued with ctx.spawn. */
export type ChildTask = { taskId: string; agent: string };

/** A child as ctx.join found it: ended, or (after a timeout) where it stood. */
export type JoinedChild = {
  taskId: string;
  agent: string;
  status: TaskStatus;
  /** What the child returned, when it succeeded. */
  result: JsonValue | null;
  /** Why it ended otherwise (the rejection, the cancellation or the last error), if recorded. */
  error: string | null;
};

export type JoinResult = { timedOut: boolean; children: JoinedChild[] };

export type SpawnOptions = {
  /**
   * What makes this child the same child on every attempt and replay of the parent (e.g. the
   * order id it is about). Default: the input itself. Two spawns of one agent with the same key
   * from one parent are one child.
   */
  key?: string;
  /** The child's priority (-1000 to 1000, default 0). */
  priority?: number;
};

export type AgentContext<Tools extends Record<string, AnyTool>> = {
  taskId: string;
  /** 1 for the first attempt; counts attempts the worker started. */
  attempt: number;
  /** Aborted when the attempt times out or the worker loses the lease. */
  signal: AbortSignal;
  /** Performs a side effect at most once per intent. */
  tool<K extends keyof Tools & string>(
    name: K,
    args: ToolArgs<Tools[K]>,
  ): Promise<ToolResult<Tools[K]>>;
  /** Any other durable computation: runs once, later attempts get the journaled result. */
  step<T extends JsonValue>(name: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Enqueues a task of another agent (or this one) as a child of this task, at most once per
   * intent: a retry or a replay of this task gets the same child back instead of a second one.
   * With the Agent object the input is typed and checked against its schema here.
   */
  spawn<A extends Agent>(
    agent: A,
    input: z.input<A["input"]>,
    options?: SpawnOptions,
  ): Promise<ChildTask>;
  spawn(agent: string, input: JsonValue, options?: SpawnOptions): Promise<ChildTask>;
  /**
   * Waits until each child has succeeded, been rejected or been cancelled (a dead child holds the
   * join until a reviewer replays, resumes or rejects it), without holding a lease or spending an
   * attempt; or until `timeoutMs` passed, with `timedOut: true` and the children as they stood.
   */
  join(
    children: ChildTask | readonly ChildTask[],
    options?: { timeoutMs?: number },
  ): Promise<JoinResult>;
  /** A durable pause: the task waits in the queue, not in memory. */
  sleep(ms: number): Promise<void>;
  /**
   * Waits for an event named `name` whose payload contains `match`, or until `timeoutMs`
   * passes (no timeout: for ever). The task waits in `waiting` with no lease and no attempt
   * spent; an event sent before the wait started is taken if it is still kept (EVENT_KEEP_MS).
   */
  waitForEvent(name: string, options?: WaitOptions): Promise<WaitResult>;
  /**
   * A signed, single-use link to put in an email: opening it shows a confirmation, confirming
   * sends event `name` (default "callback") to this task only, which it takes with
   * ctx.waitForEvent(name). A second use answers 410 Gone. Needs CALLBACK_SECRET or AUTH_SECRET.
   */
  callbackUrl(options?: { name?: string }): Promise<string>;
  /**
   * A language-model call, journaled like any step so a re-run does not re-roll the model's
   * decision. `tools` names the agent's tools the model may choose; it only chooses, ctx.tool acts.
   */
  model(request: {
    system?: string;
    prompt: string;
    tools?: readonly (keyof Tools & string)[];
  }): Promise<ModelResponse>;
  /**
   * A durable agent loop: each model turn is a journaled step (not re-asked on a later attempt),
   * each tool call the model makes is performed as an effect of the named tool (intent-keyed,
   * approvals and money rules apply) and its result goes back to the model.
   */
  generateText(request: GenerateTextRequest<keyof Tools & string>): Promise<GenerateTextResult>;
};

/** A cron schedule in the agent's code: each occurrence enqueues one task with `input`. */
export type AgentSchedule<I> = {
  /** Unique within the agent: lower-case letters, digits, ".", "_" or "-". */
  name: string;
  /** 5 fields (minute hour day month weekday), or 6 with seconds first ("* * * * * *"). */
  cron: string;
  /** An IANA time zone the expression is read in; default "UTC". */
  timezone?: string;
  input: I;
  /** What happens to occurrences missed while no worker ticked; default "skip". */
  missed?: MissedPolicy;
};

/**
 * At most `limit` of the agent's tasks running at once across all workers: overall, or per key
 * when `key` is given (e.g. per merchant). A task over the limit waits in the queue; no attempt
 * is spent. Admins can override `limit` on the retry-policies screen.
 */
export type ConcurrencyOption<I> = {
  limit: number;
  /** 1 to 200 characters; a key that throws or is not one dead-letters the task, non-retryable. */
  key?(input: I): string;
};

export type AgentDefinition<S extends z.ZodType, Tools extends Record<string, AnyTool>> = {
  name: string;
  description?: string;
  input: S;
  tools: Tools;
  policy?: TaskPolicy;
  concurrency?: ConcurrencyOption<z.output<S>>;
  /**
   * The code's version, recorded on each attempt and shown in the dashboard (e.g. "1.4.0"). When
   * absent, a worker derives one from the published catalog entry and `run`'s source: `sha-…`.
   */
  version?: string;
  /** Cron schedules: every worker running the agent ticks them; each occurrence runs once. */
  schedules?: readonly AgentSchedule<z.input<S>>[];
  run(ctx: AgentContext<Tools>, input: z.output<S>): Promise<JsonValue | undefined>;
};

export type Agent<
  S extends z.ZodType = z.ZodType,
  Tools extends Record<string, AnyTool> = Record<string, AnyTool>,
> = AgentDefinition<S, Tools> & { readonly kind: "agent" };

/** True for what defineAgent made (a module's export, an option handed to startWorker). */
export function isAgent(value: unknown): value is Agent {
  return (
    typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "agent"
  );
}

export function defineAgent<S extends z.ZodType, Tools extends Record<string, AnyTool>>(
  def: AgentDefinition<S, Tools>,
): Agent<S, Tools> {
  if (!/^[a-z][a-z0-9-]*$/.test(def.name)) {
    throw new Error(`agent name "${def.name}" must be kebab-case ([a-z][a-z0-9-]*)`);
  }
  if (def.version !== undefined && !AGENT_VERSION_PATTERN.test(def.version)) {
    throw new Error(
      `agent ${def.name}: version "${def.version}" must be 1 to 64 letters, digits, ".", "_", "+" or "-", starting with a letter or digit`,
    );
  }
  const concurrency = def.concurrency;
  if (concurrency !== undefined) {
    const { limit, key } = concurrency;
    if (
      !Number.isInteger(limit) ||
      limit < CONCURRENCY_LIMIT_BOUNDS.min ||
      limit > CONCURRENCY_LIMIT_BOUNDS.max
    ) {
      throw new Error(
        `agent ${def.name}: concurrency.limit must be a whole number from ${CONCURRENCY_LIMIT_BOUNDS.min} to ${CONCURRENCY_LIMIT_BOUNDS.max}, got ${String(limit)}`,
      );
    }
    if (key !== undefined && typeof key !== "function") {
      throw new Error(`agent ${def.name}: concurrency.key must be a function of the input`);
    }
  }
  for (const [key, tool] of Object.entries(def.tools)) {
    if (key !== tool.name) {
      throw new Error(`agent ${def.name}: tool registered as "${key}" is named "${tool.name}"`);
    }
  }
  checkSchedules(def);
  return { ...def, kind: "agent" };
}

/** Each schedule's cron, time zone, name and input, refused naming the agent, schedule and field. */
function checkSchedules(def: AgentDefinition<z.ZodType, Record<string, AnyTool>>) {
  const seen = new Set<string>();
  for (const [i, schedule] of (def.schedules ?? []).entries()) {
    const label = `agent ${def.name}: schedule ${JSON.stringify(schedule.name ?? `#${i}`)}`;
    const parsed = scheduleSpecSchema.safeParse(schedule);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(`${label}: ${issue?.path.join(".") || "schedule"}: ${issue?.message}`);
    }
    if (seen.has(schedule.name)) throw new Error(`${label}: name: declared twice`);
    seen.add(schedule.name);
    let input: ReturnType<z.ZodType["safeParse"]>;
    try {
      input = def.input.safeParse(schedule.input);
    } catch {
      // An async schema cannot be checked here; the worker checks each task's input anyway.
      continue;
    }
    if (!input.success) {
      const issue = input.error.issues[0];
      const path = ["input", ...(issue?.path ?? [])].join(".");
      throw new Error(`${label}: ${path}: ${issue?.message} (the agent's input schema)`);
    }
  }
}
