import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { refundListSchema, refundSchema, stripeErrorSchema } from "./payments-schemas";
import { type PaymentsService, startPaymentsService } from "./payments-service";
import { listRefundsFor, postRefund, refundForm } from "./test-helpers";

let service: PaymentsService;
let clock = Date.now();

beforeEach(async () => {
  clock = Date.now();
  service = await startPaymentsService({ now: () => clock, idempotencyTtlMs: 60_000 });
});
afterEach(async () => {
  await service.stop();
});

describe("POST /v1/refunds", () => {
  it("creates a refund shaped like Stripe's", async () => {
    const reply = await postRefund(service.url, refundForm("intent-a"));
    expect(reply.status).toBe(200);
    const refund = refundSchema.parse(reply.body);
    expect(refund).toMatchObject({
      object: "refund",
      amount: 1250,
      currency: "usd",
      payment_intent: "pi_demo_1",
      reason: "requested_by_customer",
      status: "succeeded",
      metadata: { intent_key: "intent-a", order_id: "ord_42" },
      created: Math.floor(clock / 1000),
    });
    expect(refund.id).toMatch(/^re_[0-9a-f]{24}$/);
    expect(service.refunds()).toEqual([refund]);
  });

  it("leaves reason null and metadata empty when not given", async () => {
    const reply = await postRefund(service.url, { payment_intent: "pi_x", amount: "1" });
    expect(refundSchema.parse(reply.body)).toMatchObject({ reason: null, metadata: {} });
  });

  it("replays the stored answer for the same key and parameters, acting once", async () => {
    const first = await postRefund(service.url, refundForm("intent-a"), { key: "k-1" });
    // Same parameters in another order are the same request.
    const { amount, ...rest } = refundForm("intent-a");
    const second = await postRefund(service.url, { amount, ...rest }, { key: "k-1" });
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(second.status).toBe(200);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.body).toEqual(first.body);
    expect(service.refunds()).toHaveLength(1);
    const requests = service.requests();
    expect(requests.map((r) => [r.idempotencyKey, r.replayed, r.createdRefund])).toEqual([
      ["k-1", false, true],
      ["k-1", true, false],
    ]);
    expect(requests[1]?.refundId).toBe(refundSchema.parse(first.body).id);
  });

  it("refuses the same key with other parameters", async () => {
    await postRefund(service.url, refundForm("intent-a"), { key: "k-2" });
    const reply = await postRefund(service.url, refundForm("intent-a", { amount: "999" }), {
      key: "k-2",
    });
    expect(reply.status).toBe(400);
    const { error } = stripeErrorSchema.parse(reply.body);
    expect(error.type).toBe("idempotency_error");
    expect(error.message).toMatch(
      /^Keys for idempotent requests can only be used with the same parameters they were first used with/,
    );
    expect(service.refunds()).toHaveLength(1);
  });

  it("lets concurrent requests with one key create exactly one refund", async () => {
    const replies = await Promise.all(
      Array.from({ length: 8 }, () =>
        postRefund(service.url, refundForm("intent-c"), { key: "k-concurrent" }),
      ),
    );
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    const fresh = replies.filter(
      (r) => r.status === 200 && r.headers.get("idempotent-replayed") === null,
    );
    expect(fresh).toHaveLength(1);
    expect(service.refunds()).toHaveLength(1);
  });

  it("answers 409 while the first request with a key is still in flight", async () => {
    service.setFaults({ delayMs: 500 });
    const send = () => postRefund(service.url, refundForm("intent-d"), { key: "k-inflight" });
    const first = send();
    await expect.poll(() => service.requests().length).toBe(1);
    const replies = await Promise.all([first, send(), send(), send()]);
    expect(replies.map((r) => r.status)).toEqual([200, 409, 409, 409]);
    const conflict = replies.find((r) => r.status === 409);
    const { error } = stripeErrorSchema.parse(conflict?.body);
    expect(error.type).toBe("idempotency_error");
    expect(error.message).toContain("currently being processed");
    expect(service.refunds()).toHaveLength(1);
    // Once the first is done, the key replays.
    const later = await postRefund(service.url, refundForm("intent-d"), { key: "k-inflight" });
    expect(later.headers.get("idempotent-replayed")).toBe("true");
    expect(service.refunds()).toHaveLength(1);
  });

  it("creates a refund per request when no key is sent", async () => {
    await postRefund(service.url, refundForm("intent-e"));
    await postRefund(service.url, refundForm("intent-e"));
    await postRefund(service.url, refundForm("intent-e"));
    expect(service.refunds()).toHaveLength(3);
    expect(new Set(service.refunds().map((r) => r.id)).size).toBe(3);
  });

  it("forgets a key after its time to live", async () => {
    const first = await postRefund(service.url, refundForm("intent-f"), { key: "k-ttl" });
    clock += 60_000;
    const second = await postRefund(service.url, refundForm("intent-f"), { key: "k-ttl" });
    expect(second.headers.get("idempotent-replayed")).toBeNull();
    expect(refundSchema.parse(second.body).id).not.toBe(refundSchema.parse(first.body).id);
    expect(service.refunds()).toHaveLength(2);
  });

  it("does not keep a key whose request failed validation", async () => {
    const bad = await postRefund(service.url, refundForm("intent-g", { amount: "-5" }), {
      key: "k-fix",
    });
    expect(bad.status).toBe(400);
    const fixed = await postRefund(service.url, refundForm("intent-g"), { key: "k-fix" });
    expect(fixed.status).toBe(200);
    expect(service.refunds()).toHaveLength(1);
  });

  it.each([
    [null, "You did not provide an API key"],
    ["sk_test_wrong", "Invalid API Key provided"],
  ])("answers 401 to api key %s and does nothing", async (apiKey, message) => {
    const reply = await postRefund(service.url, refundForm("intent-h"), { apiKey, key: "k-h" });
    expect(reply.status).toBe(401);
    const { error } = stripeErrorSchema.parse(reply.body);
    expect(error).toMatchObject({ type: "invalid_request_error" });
    expect(error.message).toContain(message);
    expect(service.refunds()).toEqual([]);
    expect(service.requests()).toMatchObject([{ status: 401, outcome: "answered" }]);
  });

  it.each([
    [{ payment_intent: undefined }, "payment_intent", "Missing required param: payment_intent."],
    [{ amount: undefined }, "amount", "Missing required param: amount."],
    [{ amount: "12.5" }, "amount", "Invalid integer: 12.5"],
    [{ amount: "0" }, "amount", "This value must be greater than or equal to 1."],
    [{ reason: "changed_mind" }, "reason", "Invalid reason"],
    [{ currency: "usd" }, "currency", "Received unknown parameter: currency"],
    [{ "metadata[note]": "x".repeat(501) }, "metadata[note]", "up to 500 characters"],
    [{ [`metadata[${"k".repeat(41)}]`]: "x" }, `metadata[${"k".repeat(41)}]`, "up to 40"],
  ] as const)("rejects %o naming param %s", async (change, param, message) => {
    const form: Record<string, string> = refundForm("intent-v");
    for (const [name, value] of Object.entries(change)) {
      if (value === undefined) delete form[name];
      else form[name] = value;
    }
    const reply = await postRefund(service.url, form);
    expect(reply.status).toBe(400);
    const { error } = stripeErrorSchema.parse(reply.body);
    expect(error.type).toBe("invalid_request_error");
    expect(error.param).toBe(param);
    expect(error.message).toContain(message);
    expect(service.refunds()).toEqual([]);
  });

  it("answers 404 resource_missing for something that is not a payment intent", async () => {
    const reply = await postRefund(service.url, refundForm("intent-w", { payment_intent: "ch_1" }));
    expect(reply.status).toBe(404);
    expect(stripeErrorSchema.parse(reply.body).error).toMatchObject({
      code: "resource_missing",
      param: "payment_intent",
    });
  });

  it("refuses a JSON body", async () => {
    const res = await fetch(`${service.url}/v1/refunds`, {
      method: "POST",
      headers: {
        authorization: "Bearer sk_test_agent_ledger_demo",
        "content-type": "application/json",
      },
      body: JSON.stringify({ payment_intent: "pi_1", amount: 5 }),
    });
    expect(res.status).toBe(400);
    expect(service.refunds()).toEqual([]);
  });
});

describe("GET /v1/refunds", () => {
  it("lists one payment intent's refunds newest first, for reconciling by intent_key", async () => {
    await postRefund(service.url, refundForm("intent-1"));
    await postRefund(service.url, refundForm("other", { payment_intent: "pi_other" }));
    await postRefund(service.url, refundForm("intent-2"));
    const reply = await listRefundsFor(service.url, "pi_demo_1");
    expect(reply.status).toBe(200);
    const list = refundListSchema.parse(reply.body);
    expect(list.has_more).toBe(false);
    expect(list.data.map((r) => r.metadata.intent_key)).toEqual(["intent-2", "intent-1"]);
    const match = list.data.find((r) => r.metadata.intent_key === "intent-1");
    expect(match?.id).toBe(service.refunds()[0]?.id);
  });

  it("pages with limit and says when there is more", async () => {
    for (let i = 0; i < 3; i++) await postRefund(service.url, refundForm(`i-${i}`));
    const res = await fetch(`${service.url}/v1/refunds?payment_intent=pi_demo_1&limit=2`, {
      headers: { authorization: "Bearer sk_test_agent_ledger_demo" },
    });
    const list = refundListSchema.parse(await res.json());
    expect(list.data.map((r) => r.metadata.intent_key)).toEqual(["i-2", "i-1"]);
    expect(list.has_more).toBe(true);
  });

  it("requires the api key and a valid limit", async () => {
    expect((await listRefundsFor(service.url, "pi_demo_1", "sk_test_wrong")).status).toBe(401);
    const res = await fetch(`${service.url}/v1/refunds?limit=101`, {
      headers: { authorization: "Bearer sk_test_agent_ledger_demo" },
    });
    expect(res.status).toBe(400);
    expect(stripeErrorSchema.parse(await res.json()).error.param).toBe("limit");
  });
});

it("answers unknown routes with a Stripe-style 404 and records them", async () => {
  const res = await fetch(`${service.url}/v1/charges`);
  expect(res.status).toBe(404);
  expect(stripeErrorSchema.parse(await res.json()).error.message).toContain("Unrecognized");
  expect(service.requests()).toMatchObject([{ method: "GET", path: "/v1/charges", status: 404 }]);
});
