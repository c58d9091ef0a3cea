// The Stripe refunds subset the demo payments service answers: create (with Stripe's
// idempotency behaviour and the injected faults) and list (how a client reconciles).
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { type Dice, pickFault } from "./fault-dice";
import { sendJson } from "./http-io";
import type { IdempotencyStore } from "./idempotency-store";
import type { PaymentsFaults, RecordedRequest, Refund } from "./payments-schemas";
import {
  type ApiError,
  invalidRequest,
  parseCreateRefund,
  parseListRefunds,
} from "./refund-params";

export type PaymentsState = {
  apiKey: string;
  now: () => number;
  keys: IdempotencyStore;
  refunds: Refund[];
  requests: RecordedRequest[];
  faults: PaymentsFaults;
  dice: Dice;
  /** Aborted by stop(), so no delay or held request outlives the service. */
  stopping: AbortSignal;
};

type Answer = {
  status: number;
  body: unknown;
  headers: Record<string, string>;
  replayed: boolean;
  refundId: string | null;
  createdRefund: boolean;
};

const MAX_KEY_LENGTH = 255;
const DEFAULT_TIMEOUT_MS = 30_000;

function plain(status: number, body: unknown): Answer {
  return { status, body, headers: {}, replayed: false, refundId: null, createdRefund: false };
}

function fromError(error: ApiError): Answer {
  return plain(error.status, error.body);
}

function unauthorized(state: PaymentsState, req: IncomingMessage): Answer | null {
  const header = req.headers.authorization;
  if (header === `Bearer ${state.apiKey}`) return null;
  const message =
    header === undefined
      ? "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY')."
      : "Invalid API Key provided.";
  return fromError(invalidRequest(message, undefined, 401));
}

async function pause(state: PaymentsState): Promise<void> {
  const ms = state.faults.delayMs ?? 0;
  if (ms > 0) await sleep(ms, undefined, { signal: state.stopping });
}

function createRefundNow(state: PaymentsState, form: Record<string, string>): Answer {
  const parsed = parseCreateRefund(form);
  if (!parsed.ok) return fromError(parsed.error);
  const refund: Refund = {
    id: `re_${randomBytes(12).toString("hex")}`,
    object: "refund",
    amount: parsed.value.amount,
    currency: "usd",
    payment_intent: parsed.value.payment_intent,
    reason: parsed.value.reason,
    status: "succeeded",
    metadata: parsed.value.metadata,
    created: Math.floor(state.now() / 1000),
  };
  state.refunds.push(refund);
  return {
    status: 200,
    body: refund,
    headers: {},
    replayed: false,
    refundId: refund.id,
    createdRefund: true,
  };
}

/** Same parameters means the same form, whatever order its fields came in. */
function fingerprint(form: Record<string, string>): string {
  return JSON.stringify(Object.entries(form).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

async function processCreate(
  state: PaymentsState,
  req: IncomingMessage,
  form: Record<string, string>,
): Promise<Answer> {
  const denied = unauthorized(state, req);
  if (denied !== null) return denied;
  const contentType = req.headers["content-type"] ?? "application/x-www-form-urlencoded";
  if (!contentType.startsWith("application/x-www-form-urlencoded")) {
    const message = `Invalid request: unsupported Content-Type ${contentType}; send application/x-www-form-urlencoded.`;
    return fromError(invalidRequest(message));
  }
  const key = req.headers["idempotency-key"];
  if (key === undefined || Array.isArray(key)) {
    await pause(state);
    return createRefundNow(state, form);
  }
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
    return fromError(
      invalidRequest(`Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters long.`),
    );
  }
  const echo = { "idempotency-key": key };
  const claim = state.keys.claim(key, fingerprint(form));
  if (claim.kind !== "new") {
    await pause(state);
    if (claim.kind === "replay") {
      const { status, body, refundId } = claim.response;
      const headers = { ...echo, "idempotent-replayed": "true" };
      return { status, body, headers, replayed: true, refundId, createdRefund: false };
    }
    const error =
      claim.kind === "mismatch"
        ? {
            status: 400,
            message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
          }
        : {
            status: 409,
            message: `The request with idempotency key '${key}' is currently being processed. There is currently another in-progress request using this API key and idempotency key; try again later.`,
          };
    const body = { error: { type: "idempotency_error", message: error.message } };
    return { ...plain(error.status, body), headers: echo };
  }
  let finished = false;
  try {
    // The key stays in flight for the whole pause: that is the window a concurrent repeat sees.
    await pause(state);
    const answer = createRefundNow(state, form);
    // Stripe keeps a result only once the endpoint began acting; a request refused by
    // validation leaves the key unused, so correcting and retrying with it is allowed.
    if (answer.createdRefund) {
      claim.finish({ status: answer.status, body: answer.body, refundId: answer.refundId });
      finished = true;
    }
    return { ...answer, headers: echo };
  } finally {
    if (!finished) claim.release();
  }
}

function note(record: RecordedRequest, answer: Answer): void {
  record.status = answer.status;
  record.replayed = answer.replayed;
  record.refundId = answer.refundId;
  record.createdRefund = answer.createdRefund;
}

function respond(res: ServerResponse, record: RecordedRequest, answer: Answer): void {
  note(record, answer);
  if (res.destroyed) {
    record.outcome = "client_gone";
    return;
  }
  const requestId = `req_${randomBytes(7).toString("hex")}`;
  sendJson(res, answer.status, answer.body, { "request-id": requestId, ...answer.headers });
  record.outcome = "answered";
}

/** Never answers: holds the request, then cuts the connection (unless the client gave up first). */
async function holdThenDrop(
  state: PaymentsState,
  req: IncomingMessage,
  res: ServerResponse,
  record: RecordedRequest,
): Promise<void> {
  const clientLeft = new AbortController();
  if (res.destroyed) clientLeft.abort();
  else res.once("close", () => clientLeft.abort());
  const signal = AbortSignal.any([state.stopping, clientLeft.signal]);
  await sleep(state.faults.timeoutMs ?? DEFAULT_TIMEOUT_MS, undefined, { signal }).catch(() => {
    // Aborted: the client left or the service stops; either way there is no one to drop.
  });
  if (clientLeft.signal.aborted) {
    record.outcome = "client_gone";
    return;
  }
  req.socket.destroy();
  record.outcome = "dropped";
}

export async function createRefund(
  state: PaymentsState,
  req: IncomingMessage,
  res: ServerResponse,
  record: RecordedRequest,
): Promise<void> {
  const { faults } = state;
  // A scoped outage decides by the payment, not by the dice: the seeded sequence of the other
  // faults stays what it would have been without it.
  const paymentIntent = record.params.payment_intent ?? "";
  const outage = faults.outages?.find((o) => paymentIntent.startsWith(o.paymentIntentPrefix));
  if (outage !== undefined) {
    record.fault = "outage";
    const body = { error: { type: outage.type ?? "api_error", message: outage.message } };
    respond(res, record, plain(outage.status, body));
    return;
  }
  const fault = pickFault(state.dice, [
    ["status502", faults.status502Rate],
    ["timeout", faults.timeoutRate],
    ["dropAfterAct", faults.dropAfterActRate],
  ] as const);
  record.fault = fault;
  // A gateway in front of the API fails or stalls: the request never reaches the endpoint.
  if (fault === "status502") {
    respond(res, record, plain(502, { error: { type: "api_error", message: "Bad gateway." } }));
    return;
  }
  if (fault === "timeout" && faults.actBeforeTimeout !== true) {
    await holdThenDrop(state, req, res, record);
    return;
  }
  const answer = await processCreate(state, req, record.params);
  if (fault === null) {
    respond(res, record, answer);
    return;
  }
  // Acted, then the answer is lost: what a client sees when the server dies after the effect.
  note(record, answer);
  if (fault === "timeout") {
    await holdThenDrop(state, req, res, record);
    return;
  }
  req.socket.destroy();
  record.outcome = "dropped";
}

export function listRefunds(
  state: PaymentsState,
  req: IncomingMessage,
  res: ServerResponse,
  record: RecordedRequest,
): void {
  const denied = unauthorized(state, req);
  if (denied !== null) {
    respond(res, record, denied);
    return;
  }
  const parsed = parseListRefunds(record.params);
  if (!parsed.ok) {
    respond(res, record, fromError(parsed.error));
    return;
  }
  const { payment_intent, limit } = parsed.value;
  // Creation order reversed is newest first, ties within a second included.
  const matching = state.refunds
    .filter((refund) => payment_intent === undefined || refund.payment_intent === payment_intent)
    .reverse();
  const body = {
    object: "list",
    data: matching.slice(0, limit),
    has_more: matching.length > limit,
    url: "/v1/refunds",
  };
  respond(res, record, plain(200, body));
}
