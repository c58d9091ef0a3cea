// One definition per HTTP endpoint: who may call it (scope), what it takes (zod schemas for
// path, query, headers and body), what it answers (a zod schema), and the handler. The route
// file exports `route(endpoint)`; the OpenAPI document is generated from the same definitions,
// so the document cannot drift from what is parsed. Every failure is a problem+json response,
// and nothing the caller sends can produce a 500 except a real fault (which is logged).
import type { z } from "zod";
import { AuthError, type Scope, type Viewer } from "../domain/access";
import { unstorable } from "../domain/json";
import { errorFields, logger } from "../log";
import { isConnectionError } from "../server/db";
import { failSpan, inSpan, requestParent, type Span, SpanKind } from "../server/tracing";
import { readCappedBody } from "./body";
import { guardRoute, type RouteContext } from "./guard-route";
import { MAX_BODY_BYTES } from "./limits";
import { ApiProblem, type ProblemType, problem, unavailable } from "./problems";

/** Bodies above this are refused before parsing (413). */
export { MAX_BODY_BYTES };

export type HeaderSpec = {
  name: string;
  description: string;
  required?: boolean;
  schema: z.ZodType<string | undefined>;
};

export type EndpointContext<P, Q, B> = {
  params: P;
  query: Q;
  body: B;
  viewer: Viewer;
  request: Request;
  /** The request's server span (a no-op unless tracing is on): for the handler's attributes. */
  span: Span;
};

/** A non-default status or extra headers for a success. */
export class Reply<R> {
  constructor(
    readonly body: R,
    readonly status = 200,
    readonly headers: Record<string, string> = {},
  ) {}
}

export type Endpoint<P = unknown, Q = unknown, B = unknown, R = unknown> = {
  method: "GET" | "POST";
  /** Under /api/v1, in OpenAPI form: "/tasks/{id}". */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  scope: Scope;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  requestHeaders?: HeaderSpec[];
  response: z.ZodType<R>;
  /** The success statuses it answers with, each with what it means (default: 200 "OK"). */
  success?: Partial<Record<200 | 201, string>>;
  /** Response headers worth documenting, name → description. */
  responseHeaders?: Record<string, string>;
  /** Problems this endpoint answers besides the ones every endpoint may answer. */
  problems: ProblemType[];
  // Method syntax: a list of endpoints with different inputs is an Endpoint[] (bivariance).
  handle(context: EndpointContext<P, Q, B>): Promise<R | Reply<R>>;
};

/** Problems every endpoint may answer. */
export const COMMON_PROBLEMS: ProblemType[] = [
  "unauthenticated",
  "forbidden",
  "invalid-request",
  "unavailable",
  "internal",
];
export const BODY_PROBLEMS: ProblemType[] = [
  "invalid-body",
  "unsupported-media-type",
  "payload-too-large",
];

export function defineEndpoint<P, Q, B, R>(endpoint: Endpoint<P, Q, B, R>): Endpoint<P, Q, B, R> {
  return endpoint;
}

/** Zod issues as `errors: [{ path, message }]` (the `invalid-request` extension member). */
function invalid(where: "path" | "query" | "header" | "body", error: z.ZodError): ApiProblem {
  const errors = error.issues.map((issue) => ({
    in: where,
    path: issue.path.map(String).join("."),
    message: issue.message,
  }));
  const first = errors[0];
  const detail = first
    ? `${where}${first.path ? ` ${first.path}` : ""}: ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ""}`
    : `the ${where} is not valid`;
  return new ApiProblem("invalid-request", detail, { errors });
}

function parsePart<T>(
  schema: z.ZodType<T> | undefined,
  value: unknown,
  where: "path" | "query" | "header" | "body",
): T {
  if (!schema) return undefined as T;
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalid(where, parsed.error);
  return parsed.data;
}

/**
 * Query strings as an object: a key given once is a string, given more than once a list. No
 * prototype, so `?__proto__=1` is an unknown parameter like any other, not an assignment.
 */
export function queryObject(url: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    out[key] = values.length === 1 ? (values[0] as string) : values;
  }
  const refused = unstorable(out, "query");
  if (refused) {
    throw new ApiProblem("invalid-request", `${refused}`, {
      errors: [{ in: "query", path: "", message: refused }],
    });
  }
  return out;
}

async function readBody(request: Request): Promise<unknown> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type)) {
    throw new ApiProblem(
      "unsupported-media-type",
      type
        ? `the body is ${type.split(";")[0]}; send application/json`
        : "send Content-Type: application/json",
    );
  }
  const bytes = await readCappedBody(request, MAX_BODY_BYTES);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ApiProblem("invalid-body", "the body is not UTF-8");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ApiProblem("invalid-body", `the body is not JSON: ${(error as Error).message}`);
  }
  // Before any schema walks it: PostgreSQL cannot store NUL or lone surrogates, and a hostile
  // depth would overflow a recursive parser's stack.
  const refused = unstorable(parsed, "body");
  if (refused) throw new ApiProblem("invalid-body", `${refused}; it cannot be stored`);
  return parsed;
}

/**
 * The route handler for an endpoint: a server span around it all (docs/tracing.md), then
 * authenticate, authorize, parse, run, answer.
 */
export function route<P, Q, B, R>(
  endpoint: Endpoint<P, Q, B, R>,
): (request: Request, context: RouteContext) => Promise<Response> {
  const template = `/api/v1${endpoint.path}`;
  return (request, context) =>
    inSpan(
      `${endpoint.method} ${template}`,
      {
        kind: SpanKind.SERVER,
        parent: requestParent(request.headers.get("traceparent")),
        attributes: { "http.request.method": endpoint.method, "http.route": template },
      },
      async (span) => {
        const response = await guarded(endpoint, span)(request, context);
        span.setAttribute("http.response.status_code", response.status);
        // A 4xx is the caller's to fix; only the server's own failures mark the span failed.
        if (response.status >= 500) failSpan(span, new Error(`answered ${response.status}`));
        return response;
      },
    );
}

function guarded<P, Q, B, R>(endpoint: Endpoint<P, Q, B, R>, span: Span) {
  return guardRoute(endpoint.scope, async (request, viewer, context) => {
    try {
      const params = parsePart(endpoint.params, await context.params, "path");
      const query = parsePart(endpoint.query, queryObject(new URL(request.url)), "query");
      if (endpoint.requestHeaders) {
        for (const header of endpoint.requestHeaders) {
          parsePart(header.schema, request.headers.get(header.name) ?? undefined, "header");
        }
      }
      const body = endpoint.body
        ? parsePart(endpoint.body, await readBody(request), "body")
        : (undefined as B);
      const result = await endpoint.handle({ params, query, body, viewer, request, span });
      const reply = result instanceof Reply ? result : new Reply(result);
      return Response.json(reply.body, {
        status: reply.status,
        headers: { "cache-control": "no-store", ...reply.headers },
      });
    } catch (error) {
      if (error instanceof ApiProblem) return error.toResponse();
      if (error instanceof AuthError) {
        return problem(error.status === 401 ? "unauthenticated" : "forbidden", error.message);
      }
      if (isConnectionError(error)) return unavailable();
      logger("api").error(
        { method: endpoint.method, path: `/api/v1${endpoint.path}`, ...errorFields(error) },
        "endpoint failed",
      );
      return problem("internal", "the error was logged; try again, or tell the operator");
    }
  });
}
