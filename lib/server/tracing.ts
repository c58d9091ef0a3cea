// OpenTelemetry for the web server, the worker and the demo services. Spans are made through
// @opentelemetry/api only: without a registered provider they are no-ops. Our own processes
// register one (startTracing) when the standard OTEL_* variables ask for it (lib/env.ts); the
// SDK packages are loaded then and only then. A team running startWorker in its own process
// gets our spans in its own provider.
import { createRequire } from "node:module";
import {
  type Attributes,
  type Context,
  context,
  createContextKey,
  type Link,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import {
  formatTraceparent,
  parseTraceparent,
  type TraceIds,
  traceIdsOf,
} from "../domain/traceparent";
import { env, tracesExport } from "../env";

export { type Context, type Span, SpanKind };

const tracer = () => trace.getTracer("agent-ledger");

// What the global provider delegates to while nobody registered one.
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();

/**
 * Whether spans go anywhere: a provider is registered (ours or the host's). Lets a caller skip
 * work done only for a span, such as reading a task's traceparent.
 */
export function tracingOn(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider && provider.getDelegate() === NOOP_PROVIDER);
}

const LEDGER_ENTRIES = createContextKey("agent-ledger.ledger-entries");

/** A context under which every ledger append (noteLedgerEntries) is added to `into`. */
export function collectingLedgerEntries(
  ctx: Context,
  into: { id: number; stream: string; kind: string }[],
): Context {
  return ctx.setValue(LEDGER_ENTRIES, into);
}

/** Called by the ledger's append: the entries it wrote, for a span that collects them. */
export function noteLedgerEntries(
  entries: readonly { id: number; stream: string; kind: string }[],
): void {
  const into = context.active().getValue(LEDGER_ENTRIES) as
    | { id: number; stream: string; kind: string }[]
    | undefined;
  if (into) for (const e of entries) into.push({ id: e.id, stream: e.stream, kind: e.kind });
}

/** The context whose span is the caller's (a remote parent), or the root without one. */
export function contextOf(traceparent: string | null | undefined): Context {
  const ids = traceIdsOf(traceparent);
  if (!ids) return ROOT_CONTEXT;
  return trace.setSpanContext(ROOT_CONTEXT, { ...ids, isRemote: true });
}

/** The traceparent naming `ctx`'s span (the active context's by default), if it has a valid one. */
export function traceparentOf(ctx: Context = context.active()): string | undefined {
  const span = trace.getSpanContext(ctx);
  if (!span || !trace.isSpanContextValid(span)) return undefined;
  return formatTraceparent(span);
}

/** The headers that carry `span`'s context to an HTTP service: {traceparent}, or none. */
export function traceHeaders(span: Span): Record<string, string> {
  const tp = traceparentOf(trace.setSpan(ROOT_CONTEXT, span));
  return tp === undefined ? {} : { traceparent: tp };
}

// Ids the runtime asks for (an attempt's, so the reaper can name a crashed one): honoured by the
// id generator startTracing installs, ignored by another provider's (then ids are random).
let requested: Partial<Pick<TraceIds, "traceId" | "spanId">> = {};

export type SpanOptions = {
  parent?: Context;
  kind?: SpanKind;
  attributes?: Attributes;
  /** This span's id, when the provider is ours. */
  spanId?: string;
  /** The trace's id, for a root span, when the provider is ours. */
  traceId?: string;
  startTime?: Date;
  /** Spans this one is linked to without being their child (a request that caused it). */
  links?: Link[];
  /** Errors that stop the work without failing it (a suspension): named on the span, not failed. */
  expected?: (err: unknown) => boolean;
};

export function startSpan(name: string, opts: SpanOptions = {}): Span {
  requested = { spanId: opts.spanId, traceId: opts.traceId };
  try {
    return tracer().startSpan(
      name,
      {
        kind: opts.kind ?? SpanKind.INTERNAL,
        attributes: opts.attributes,
        startTime: opts.startTime,
        links: opts.links,
      },
      opts.parent ?? context.active(),
    );
  } finally {
    requested = {};
  }
}

/** Marks the span failed with `err`. */
export function failSpan(span: Span, err: unknown): void {
  if (!span.isRecording()) return;
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: err instanceof Error ? err.message : String(err),
  });
}

/**
 * Runs `fn` in a span, failed when `fn` throws, ended either way. `fn` gets the span's context
 * (the parent for its children, also without a context manager); it is the active one inside.
 */
export async function inSpan<T>(
  name: string,
  opts: SpanOptions,
  fn: (span: Span, ctx: Context) => Promise<T>,
): Promise<T> {
  const span = startSpan(name, opts);
  const ctx = trace.setSpan(opts.parent ?? context.active(), span);
  try {
    return await context.with(ctx, () => fn(span, ctx));
  } catch (err) {
    if (opts.expected?.(err)) {
      span.setAttribute("agent_ledger.stopped_by", err instanceof Error ? err.name : String(err));
    } else {
      failSpan(span, err);
    }
    throw err;
  } finally {
    span.end();
  }
}

/**
 * The parent of a request's server span: the server's own span when it has one (Next's, with
 * tracing on), else the caller's `traceparent` header (an invalid one is ignored, as W3C asks).
 */
export function requestParent(traceparentHeader: string | null | undefined): Context {
  const active = contextOf(traceparentOf());
  if (traceparentOf(active) !== undefined) return active;
  return contextOf(parseTraceparent(traceparentHeader));
}

/**
 * An HTTP server's span for a request, child of the request's `traceparent` header: ended when
 * the response is. For the demo services; a no-op unless tracing is on.
 */
export function serverSpan(
  name: string,
  headers: Record<string, string | string[] | undefined>,
  res: { statusCode: number; once(event: "finish" | "close", fn: () => void): unknown },
): Span {
  const raw = headers.traceparent;
  const header = Array.isArray(raw) ? raw[0] : raw;
  const span = startSpan(name, {
    kind: SpanKind.SERVER,
    parent: contextOf(parseTraceparent(header)),
  });
  if (!span.isRecording()) return span;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    span.setAttribute("http.response.status_code", res.statusCode);
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
  res.once("finish", end);
  res.once("close", end);
  return span;
}

export type Tracing = { flush(): Promise<void>; shutdown(): Promise<void> };

const randomHex = (bytes: number) =>
  Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) =>
    b.toString(16).padStart(2, "0"),
  ).join("");

/**
 * Registers the SDK for this process when the environment asks for traces (docs/tracing.md);
 * undefined when it does not, and nothing is loaded. `service` is the default service.name.
 */
export async function startTracing(service: string): Promise<Tracing | undefined> {
  const config = env();
  const target = tracesExport(config);
  if (!target) return undefined;
  // Required, not imported: Node's own resolution (the SDK's CommonJS build) wherever this
  // module is bundled or transformed, and nothing a bundler tries to pull in.
  const require = createRequire(import.meta.url);
  let sdk: typeof import("@opentelemetry/sdk-trace-node");
  let resources: typeof import("@opentelemetry/resources");
  let otlp: typeof import("@opentelemetry/exporter-trace-otlp-http");
  try {
    sdk = require("@opentelemetry/sdk-trace-node");
    resources = require("@opentelemetry/resources");
    otlp = require("@opentelemetry/exporter-trace-otlp-http");
  } catch (err) {
    throw new Error(
      "tracing is configured (OTEL_*) but the OpenTelemetry SDK is not installed: npm install @opentelemetry/sdk-trace-node @opentelemetry/exporter-trace-otlp-http @opentelemetry/resources",
      { cause: err },
    );
  }
  const exporter =
    target.kind === "console"
      ? new sdk.ConsoleSpanExporter()
      : new otlp.OTLPTraceExporter({ url: target.url });
  const provider = new sdk.NodeTracerProvider({
    resource: resources.resourceFromAttributes({
      "service.name": config.OTEL_SERVICE_NAME ?? service,
    }),
    idGenerator: {
      generateTraceId: () => requested.traceId ?? randomHex(16),
      generateSpanId: () => requested.spanId ?? randomHex(8),
    },
    spanProcessors: [new sdk.BatchSpanProcessor(exporter)],
  });
  provider.register();
  return {
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
