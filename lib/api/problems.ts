// Errors over HTTP are RFC 9457 problem details: `application/problem+json` with a `type` URI
// that names the error and never changes, so clients branch on `type`, not on wording. This
// table is the list of types; the OpenAPI document is generated from it (docs/api.md describes them).
export const PROBLEM_BASE = "https://agent-ledger.dev/problems/";

export const PROBLEMS = {
  unauthenticated: { status: 401, title: "Sign in or send an API token" },
  forbidden: { status: 403, title: "Not allowed" },
  "cross-origin": { status: 403, title: "Cross-origin request refused" },
  "not-found": { status: 404, title: "Not found" },
  "method-not-allowed": { status: 405, title: "Method not allowed" },
  "invalid-body": { status: 400, title: "The body is not valid JSON" },
  "invalid-request": { status: 400, title: "The request is not valid" },
  "invalid-input": { status: 400, title: "The input is not valid" },
  "unsupported-media-type": { status: 415, title: "Send application/json" },
  "payload-too-large": { status: 413, title: "The body is too large" },
  "request-timeout": { status: 408, title: "The request did not arrive in time" },
  "headers-too-large": { status: 431, title: "The request headers are too large" },
  "version-conflict": { status: 409, title: "The task changed since you read it" },
  "state-conflict": { status: 409, title: "Not possible in the current state" },
  "idempotency-key-in-use": {
    status: 409,
    title: "A request with this Idempotency-Key is in flight",
  },
  "idempotency-key-reused": {
    status: 422,
    title: "This Idempotency-Key was used with a different request",
  },
  "unknown-agent": { status: 422, title: "No worker has published this agent" },
  "invalid-task-input": { status: 422, title: "The input does not match the agent's schema" },
  "sign-in-failed": { status: 401, title: "Sign-in failed" },
  "sign-in-locked": { status: 429, title: "Too many failed sign-ins" },
  unavailable: { status: 503, title: "The database is not answering; try again shortly" },
  internal: { status: 500, title: "Something went wrong on our side" },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemType = keyof typeof PROBLEMS;

export type ProblemBody = {
  type: string;
  title: string;
  status: number;
  detail?: string;
  [extension: string]: unknown;
};

export function problemBody(
  type: ProblemType,
  detail?: string,
  extra?: Record<string, unknown>,
): ProblemBody {
  const { status, title } = PROBLEMS[type];
  return { type: `${PROBLEM_BASE}${type}`, title, status, detail, ...extra };
}

/** A problem+json response; `extra` adds extension members (e.g. `errors`, fingerprints). */
export function problem(
  type: ProblemType,
  detail?: string,
  extra?: Record<string, unknown>,
  headers?: HeadersInit,
): Response {
  const body = problemBody(type, detail, extra);
  return Response.json(body, {
    status: body.status,
    headers: {
      "content-type": "application/problem+json",
      "cache-control": "no-store",
      ...Object.fromEntries(new Headers(headers)),
    },
  });
}

/** A lost database connection (a restart, a failover): 503 with Retry-After, never a 500. */
export function unavailable(): Response {
  return problem("unavailable", "the database connection was lost; retry", undefined, {
    "retry-after": "2",
  });
}

/** Thrown inside an endpoint to answer with a problem (the endpoint wrapper catches it). */
export class ApiProblem extends Error {
  override name = "ApiProblem";
  constructor(
    readonly type: ProblemType,
    readonly detail?: string,
    readonly extra?: Record<string, unknown>,
    readonly headers?: HeadersInit,
  ) {
    super(detail ?? PROBLEMS[type].title);
  }
  toResponse(): Response {
    return problem(this.type, this.detail, this.extra, this.headers);
  }
}
