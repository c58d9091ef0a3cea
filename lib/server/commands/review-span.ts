// A review action's span (docs/tracing.md): a person's approve, reject, replay, correction,
// resolution or cancellation is a span in the task's trace, under the traceparent the task
// stored, so the trace shows who let the task go on and when, between its attempts. The request
// that carried the action (an API call's span) is linked, not the parent. One wrapper for every
// task command, so the dashboard, the API, the CLI and bulk actions all make the same span.
import { context, ROOT_CONTEXT, trace } from "@opentelemetry/api";
import type pg from "pg";
import type { Principal } from "../../domain/access";
import type { CommandResult } from "../../domain/command-result";
import { taskTraceId } from "../../domain/traceparent";
import { taskStream } from "../ledger/append-ledger";
import { collectingLedgerEntries, contextOf, failSpan, startSpan, tracingOn } from "../tracing";

type TaskCommand<I extends { taskId: string }, R> = (
  pool: pg.Pool,
  principal: Principal,
  input: I,
) => Promise<CommandResult<R>>;

/** The task's stored traceparent; null when it has none, or there is no such task. */
async function storedTraceparent(pool: pg.Pool, taskId: string): Promise<string | null> {
  try {
    const { rows } = await pool.query<{ traceparent: string | null }>(
      "select traceparent from tasks where id = $1",
      [taskId],
    );
    return rows[0]?.traceparent ?? null;
  } catch {
    // Not a task id the database takes: the command itself says so; the span has no parent.
    return null;
  }
}

/**
 * `command` with a span `agent-ledger.review <action>` around it: the task id, the action, the
 * actor, and the ledger entry the action wrote on the task's stream (its decision, the last
 * one). A refusal (conflict, not found) is named on the span without failing it: nothing broke.
 */
export function reviewSpan<I extends { taskId: string; bulkId?: string }, R>(
  action: string | ((input: I) => string),
  command: TaskCommand<I, R>,
): TaskCommand<I, R> {
  return async (pool, principal, input) => {
    // Off, not even the traceparent is read.
    if (!tracingOn()) return command(pool, principal, input);
    const stored = await storedTraceparent(pool, input.taskId);
    const request = trace.getSpanContext(context.active());
    const name = typeof action === "function" ? action(input) : action;
    const span = startSpan(`agent-ledger.review ${name}`, {
      parent: stored ? contextOf(stored) : ROOT_CONTEXT,
      // A task enqueued without a trace has one of its own, its attempts' (worker/runtime/tracing.ts).
      ...(stored ? {} : { traceId: taskTraceId(input.taskId) }),
      links: request && trace.isSpanContextValid(request) ? [{ context: request }] : [],
      attributes: {
        "agent_ledger.task_id": input.taskId,
        "agent_ledger.review_action": name,
        "agent_ledger.actor": principal.actor,
        ...(input.bulkId ? { "agent_ledger.bulk_id": input.bulkId } : {}),
      },
    });
    const written: { id: number; stream: string; kind: string }[] = [];
    try {
      const result = await context.with(
        collectingLedgerEntries(trace.setSpan(context.active(), span), written),
        () => command(pool, principal, input),
      );
      if (result.ok) {
        const mine = written.filter((e) => e.stream === taskStream(input.taskId.toLowerCase()));
        const last = mine.at(-1);
        if (last) {
          span.setAttribute("agent_ledger.ledger_entry_id", last.id);
          span.setAttribute("agent_ledger.ledger_entry_kind", last.kind);
        }
      } else {
        span.setAttribute("agent_ledger.refused", result.code);
      }
      return result;
    } catch (err) {
      failSpan(span, err);
      throw err;
    } finally {
      span.end();
    }
  };
}
