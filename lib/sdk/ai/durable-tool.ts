// An AI SDK tool (`tool({ description, inputSchema, execute })`) made one of our tools: its
// execute becomes an effect, performed at most once per intent, with approvals, money, sensitive
// fields and reconcile as any defineTool tool has them. The input schema must be zod, so the
// arguments are typed from it and ctx.tool("name", wrongArgs) does not compile.
import type { Tool as AiTool, ToolExecutionOptions } from "ai";
import type { z } from "zod";
import type { JsonValue } from "../../domain/json";
import { defineTool, type Tool, type ToolDefinition } from "../define";

export type DurableToolOptions<Input, Output extends JsonValue> = Omit<
  ToolDefinition<z.ZodType<Input, Input>, Output>,
  "input" | "execute" | "intent" | "description"
> & {
  /** Default: the AI SDK tool's description. */
  description?: string;
  /** What is being done (e.g. `{ orderId }`); default: the whole canonical arguments. */
  intent?(args: Input): JsonValue;
};

/**
 * The AI SDK execute receives `options.toolCallId` = the effect's idempotency key (the same on
 * every attempt and replay of this intent, unlike the model's call id, which changes when the
 * model is asked again), `options.experimental_context` = `{ idempotencyKey }`,
 * `options.abortSignal` = the attempt's signal, and `options.messages` = [] (an effect acts on
 * its arguments, not on the conversation). A streaming execute's last value is its result.
 */
export function durableTool<Input, Output extends JsonValue>(
  aiTool: AiTool<Input, Output>,
  opts: DurableToolOptions<Input, Output>,
): Tool<z.ZodType<Input, Input>, Output> {
  const { execute } = aiTool;
  if (!execute) throw new Error(`durableTool ${opts.name}: the AI SDK tool has no execute`);
  const schema: unknown = aiTool.inputSchema;
  if (!isZod(schema)) {
    throw new Error(
      `durableTool ${opts.name}: the inputSchema must be a zod schema (it types and checks the arguments of the effect)`,
    );
  }
  const { intent, description, ...rest } = opts;
  return defineTool<z.ZodType<Input, Input>, Output>({
    ...rest,
    description: description ?? aiTool.description,
    input: schema as z.ZodType<Input, Input>,
    intent: intent ?? ((args) => args as JsonValue),
    async execute(args, ctx) {
      const options: ToolExecutionOptions = {
        toolCallId: ctx.idempotencyKey,
        messages: [],
        abortSignal: ctx.signal,
        experimental_context: { idempotencyKey: ctx.idempotencyKey },
      };
      const out = execute(args, options);
      if (isAsyncIterable<Output>(out)) {
        let last: { value: Output } | undefined;
        for await (const value of out) last = { value };
        if (!last) throw new Error(`${opts.name}: the streaming execute yielded nothing`);
        return last.value;
      }
      return await out;
    },
  });
}

function isZod(schema: unknown): schema is z.ZodType {
  return (
    typeof schema === "object" &&
    schema !== null &&
    "_zod" in schema &&
    typeof (schema as { safeParse?: unknown }).safeParse === "function"
  );
}

function isAsyncIterable<T>(value: unknown): value is AsyncIterable<T> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function"
  );
}
