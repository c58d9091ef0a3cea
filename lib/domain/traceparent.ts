// The W3C Trace Context `traceparent` header (https://www.w3.org/TR/trace-context/), version 00:
// what the API and the library's enqueue accept from a caller and store with the task. An
// invalid header is ignored, as the recommendation asks of a receiver, never an error. And the
// ids the runtime derives for a task's spans, so that a process that never saw an attempt can
// still name it (a crashed attempt's span is recorded by the worker that reaps it).
import { createHash } from "node:crypto";
import { z } from "zod";

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export const traceparentSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(
    TRACEPARENT,
    "must be a W3C traceparent: 00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>",
  )
  .refine((v) => !/^00-0{32}-/.test(v), "the trace id must not be all zeros")
  .refine((v) => !/^00-[0-9a-f]{32}-0{16}-/.test(v), "the parent id must not be all zeros");

/** The header as stored (lower case), or undefined when absent or invalid. */
export function parseTraceparent(header: string | null | undefined): string | undefined {
  if (header == null) return undefined;
  const parsed = traceparentSchema.safeParse(header);
  return parsed.success ? parsed.data : undefined;
}

export type TraceIds = { traceId: string; spanId: string; traceFlags: number };

/** A valid traceparent's parts; undefined for anything else. */
export function traceIdsOf(traceparent: string | null | undefined): TraceIds | undefined {
  const valid = parseTraceparent(traceparent);
  const m = valid === undefined ? null : TRACEPARENT.exec(valid);
  if (!m?.[1] || !m[2] || !m[3]) return undefined;
  return { traceId: m[1], spanId: m[2], traceFlags: Number.parseInt(m[3], 16) };
}

export function formatTraceparent(ids: TraceIds): string {
  return `00-${ids.traceId}-${ids.spanId}-${(ids.traceFlags & 0xff).toString(16).padStart(2, "0")}`;
}

/**
 * The span id of a task's attempt: the same in the worker that runs it and in the one that
 * reaps it after a crash, so the crashed attempt's children find their parent.
 */
export function attemptSpanId(taskId: string, attempt: number): string {
  const id = createHash("sha256").update(`${taskId}/attempt/${attempt}`).digest("hex").slice(0, 16);
  return /^0+$/.test(id) ? "0000000000000001" : id;
}

/** The trace of a task enqueued without a traceparent: its id, so every attempt shares it. */
export function taskTraceId(taskId: string): string {
  return taskId.replaceAll("-", "").toLowerCase();
}

/** The placeholder a trace URL template (TRACE_URL_TEMPLATE) puts the trace id in. */
export const TRACE_ID_PLACEHOLDER = "{traceId}";

/**
 * The tracing backend's page for the trace `traceparent` belongs to: `template` with every
 * {traceId} replaced by the id (URL-encoded). Undefined without a template or a valid traceparent.
 */
export function traceUrlOf(
  template: string | undefined,
  traceparent: string | null | undefined,
): string | undefined {
  const ids = traceIdsOf(traceparent);
  if (!template || !ids) return undefined;
  return template.replaceAll(TRACE_ID_PLACEHOLDER, encodeURIComponent(ids.traceId));
}
