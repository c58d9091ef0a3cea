// The runtime's spans (docs/tracing.md): one per attempt, a child of the traceparent stored with
// the task (so a retry after a crash is another span in the same trace), and under it one per
// tool call, model call, durable step and wait. Thin on purpose: the runtime calls these and
// nothing else of OpenTelemetry; with no provider registered every span is a no-op.
import { attemptSpanId, taskTraceId, traceIdsOf } from "../../lib/domain/traceparent";
import {
  type Context,
  contextOf,
  failSpan,
  inSpan,
  type Span,
  SpanKind,
  startSpan,
  traceHeaders,
} from "../../lib/server/tracing";
import { ApprovalNeededError, ParkedError, SuspendError } from "./errors";

/** How a step stops its attempt without failing: it waits for a time, an event or a reviewer. */
const suspends = (err: unknown) =>
  err instanceof SuspendError || err instanceof ParkedError || err instanceof ApprovalNeededError;

export const ATTR = {
  taskId: "agent_ledger.task_id",
  agent: "agent_ledger.agent",
  attempt: "agent_ledger.attempt",
  step: "agent_ledger.step",
  tool: "agent_ledger.tool",
  effectKey: "agent_ledger.effect_key",
  ledgerEntryId: "agent_ledger.ledger_entry_id",
  outcome: "agent_ledger.outcome",
  /** A tool call's: executed, deduplicated (an earlier attempt's result) or reconciled. */
  effectOutcome: "agent_ledger.effect_outcome",
  /** A spawn's child, or the children a join waits for. */
  childTaskId: "agent_ledger.child_task_id",
  /** When a sleep's task is due again (ISO). */
  wakeAt: "agent_ledger.wake_at",
} as const;

export type TracedTask = {
  id: string;
  agent: string;
  attempts: number;
  traceparent?: string | null;
};

function attemptOptions(task: TracedTask, startTime?: Date) {
  const caller = traceIdsOf(task.traceparent);
  return {
    kind: SpanKind.CONSUMER,
    parent: contextOf(task.traceparent),
    spanId: attemptSpanId(task.id, task.attempts),
    // Without a caller's trace every attempt of the task still shares one: the task's own.
    ...(caller ? {} : { traceId: taskTraceId(task.id) }),
    attributes: {
      [ATTR.taskId]: task.id,
      [ATTR.agent]: task.agent,
      [ATTR.attempt]: task.attempts,
    },
    startTime,
  };
}

/** Runs one attempt in its span; `fn` gets the span's context, the parent of its steps' spans. */
export function attemptSpan<T extends string>(
  task: TracedTask,
  fn: (trace: Context) => Promise<T>,
  /** The id of the entry that carried the attempt's start, once it is written. */
  startEntryId: () => number | undefined = () => undefined,
): Promise<T> {
  return inSpan("agent-ledger.attempt", attemptOptions(task), async (span, ctx) => {
    const outcome = await fn(ctx);
    span.setAttribute(ATTR.outcome, outcome);
    const entryId = startEntryId();
    if (entryId !== undefined) span.setAttribute(ATTR.ledgerEntryId, entryId);
    if (outcome === "retry_wait" || outcome === "dead" || outcome === "lost") {
      failSpan(span, new Error(`attempt ${task.attempts}: ${outcome}`));
    }
    return outcome;
  });
}

/**
 * A crashed attempt, recorded by the worker that reaped it: the span the dead worker never
 * ended, with the same id (its children, exported before the crash, hang under it).
 */
export function lostAttemptSpan(task: TracedTask, startedAt: Date, worker: string | null): void {
  const span = startSpan("agent-ledger.attempt", attemptOptions(task, startedAt));
  span.setAttribute(ATTR.outcome, "worker_lost");
  failSpan(span, new Error(`worker ${worker ?? "?"} stopped renewing its lease`));
  span.end();
}

/** What a tool call's span gives the effect it runs: the key's attribute and the headers. */
export type ToolTrace = {
  span: Span;
  context: Context;
  headers(): Record<string, string>;
};

export function toolSpan<T>(
  parent: Context | undefined,
  tool: string,
  step: number,
  fn: (trace: ToolTrace) => Promise<T>,
): Promise<T> {
  return inSpan(
    `agent-ledger.tool ${tool}`,
    {
      kind: SpanKind.CLIENT,
      parent,
      attributes: { [ATTR.tool]: tool, [ATTR.step]: step },
      expected: suspends,
    },
    (span, context) => fn({ span, context, headers: () => traceHeaders(span) }),
  );
}

export function modelSpan<T>(
  parent: Context | undefined,
  step: number,
  name: string,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  return inSpan(
    "agent-ledger.model",
    {
      kind: SpanKind.CLIENT,
      parent,
      attributes: { [ATTR.step]: step, "agent_ledger.step_name": name },
    },
    fn,
  );
}

/** A durable step (ctx.step), a wait (ctx.waitForEvent), a sleep, a join or a spawn. */
export function stepSpan<T>(
  parent: Context | undefined,
  kind: "step" | "wait" | "sleep" | "join" | "spawn",
  name: string,
  step: number,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  return inSpan(
    name ? `agent-ledger.${kind} ${name}` : `agent-ledger.${kind}`,
    { parent, attributes: { [ATTR.step]: step }, expected: suspends },
    fn,
  );
}

/** The headers carrying `span` on: a spawned child stores their traceparent as its parent's. */
export { traceHeaders };
