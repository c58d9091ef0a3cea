// A local stand-in for Stripe's refunds API on 127.0.0.1, so the refund tool can be run,
// crashed and retried against a real network service that counts every delivery.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { serverSpan } from "../../lib/server/tracing";
import { CONTROL_PREFIX, handleControl } from "./control-api";
import { createDice } from "./fault-dice";
import {
  BodyTooLargeError,
  closeHttpServer,
  LOOPBACK,
  listenOnLoopback,
  readBody,
  sendJson,
} from "./http-io";
import { createIdempotencyStore } from "./idempotency-store";
import {
  type PaymentsFaults,
  paymentsFaultsSchema,
  type RecordedRequest,
  type Refund,
} from "./payments-schemas";
import { invalidRequest } from "./refund-params";
import { createRefund, listRefunds, type PaymentsState } from "./refunds-api";

export const DEFAULT_PAYMENTS_API_KEY = "sk_test_agent_ledger_demo";
// Stripe keeps idempotency keys for at least 24 hours.
const DAY_MS = 24 * 60 * 60 * 1000;

export type PaymentsServiceOptions = {
  /** 0 or absent: a free port. */
  port?: number;
  apiKey?: string;
  faults?: PaymentsFaults;
  idempotencyTtlMs?: number;
  /** Clock for refund timestamps and key expiry; tests move it to expire keys. */
  now?: () => number;
};

export type PaymentsService = {
  url: string;
  port: number;
  stop(): Promise<void>;
  requests(): RecordedRequest[];
  refunds(): Refund[];
  setFaults(faults: PaymentsFaults): void;
};

function formOf(body: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(body));
}

async function handleApi(
  state: PaymentsState,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? "/", "http://payments");
  const method = req.method ?? "GET";
  const record: RecordedRequest = {
    seq: state.requests.length + 1,
    at: new Date(state.now()).toISOString(),
    method,
    path: url.pathname,
    idempotencyKey: req.headers["idempotency-key"]?.toString() ?? null,
    params: Object.fromEntries(url.searchParams),
    fault: null,
    outcome: "pending",
    status: null,
    replayed: false,
    refundId: null,
    createdRefund: false,
  };
  state.requests.push(record);
  if (method === "POST") {
    try {
      record.params = formOf(await readBody(req));
    } catch (err) {
      if (!(err instanceof BodyTooLargeError)) throw err;
      record.status = 413;
      record.outcome = "answered";
      sendJson(res, 413, invalidRequest("Request body too large.").body);
      return;
    }
  }
  if (overRateLimit(state, record)) {
    record.fault = "rateLimited";
    record.status = 429;
    record.outcome = "answered";
    const message =
      "Too many requests hit the API too quickly. Retry after the time in Retry-After.";
    sendJson(
      res,
      429,
      { error: { type: "invalid_request_error", code: "rate_limit", message } },
      { "retry-after": "1" },
    );
    return;
  }
  const route = `${method} ${url.pathname}`;
  if (route === "POST /v1/refunds") {
    await createRefund(state, req, res, record);
    return;
  }
  if (route === "GET /v1/refunds") {
    listRefunds(state, req, res, record);
    return;
  }
  const error = invalidRequest(
    `Unrecognized request URL (${method}: ${url.pathname}).`,
    undefined,
    404,
  );
  record.status = error.status;
  record.outcome = "answered";
  sendJson(res, error.status, error.body);
}

/** Past `rateLimitPerSecond` requests let through in the second before this one. */
function overRateLimit(state: PaymentsState, record: RecordedRequest): boolean {
  const limit = state.faults.rateLimitPerSecond;
  if (limit === undefined) return false;
  const since = Date.parse(record.at) - 1_000;
  let passed = 0;
  // Newest first, stopping at the first request older than a second.
  for (let i = state.requests.length - 2; i >= 0; i--) {
    const earlier = state.requests[i];
    if (!earlier || Date.parse(earlier.at) <= since) break;
    if (earlier.fault !== "rateLimited") passed++;
  }
  return passed >= limit;
}

export async function startPaymentsService(
  opts: PaymentsServiceOptions = {},
): Promise<PaymentsService> {
  const faults = paymentsFaultsSchema.parse(opts.faults ?? {});
  const stopping = new AbortController();
  const now = opts.now ?? Date.now;
  const state: PaymentsState = {
    apiKey: opts.apiKey ?? DEFAULT_PAYMENTS_API_KEY,
    now,
    keys: createIdempotencyStore({ ttlMs: opts.idempotencyTtlMs ?? DAY_MS, now }),
    refunds: [],
    requests: [],
    faults,
    dice: createDice(faults.seed),
    stopping: stopping.signal,
  };

  function setFaults(next: PaymentsFaults): void {
    state.faults = paymentsFaultsSchema.parse(next);
    state.dice = createDice(state.faults.seed);
  }

  const control = {
    records: {
      requests: () => structuredClone(state.requests),
      refunds: () => structuredClone(state.refunds),
    },
    faultsSchema: paymentsFaultsSchema,
    getFaults: () => state.faults,
    setFaults,
    reset() {
      state.requests.length = 0;
      state.refunds.length = 0;
      state.keys.clear();
    },
  };

  const server = createServer((req, res) => {
    const isControl = (req.url ?? "").startsWith(CONTROL_PREFIX);
    // A provider's own span, child of the tool call that sent the request (docs/tracing.md).
    if (!isControl) {
      serverSpan(
        `payments ${req.method ?? "GET"} ${new URL(req.url ?? "/", "http://payments").pathname}`,
        req.headers,
        res,
      );
    }
    const handled = isControl ? handleControl(req, res, control) : handleApi(state, req, res);
    handled.catch((err: unknown) => {
      // Stopping aborts delays on purpose; the connection is being closed anyway.
      if (stopping.signal.aborted || res.headersSent || res.destroyed) return;
      const message = err instanceof Error ? err.message : String(err);
      sendJson(res, 500, { error: { type: "api_error", message } });
    });
  });
  const port = await listenOnLoopback(server, opts.port ?? 0);

  return {
    url: `http://${LOOPBACK}:${port}`,
    port,
    async stop() {
      stopping.abort();
      await closeHttpServer(server);
    },
    requests: () => structuredClone(state.requests),
    refunds: () => structuredClone(state.refunds),
    setFaults,
  };
}
