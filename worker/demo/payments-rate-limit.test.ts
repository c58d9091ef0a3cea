// The demo payments service's rate limit and the refund tool's answer to it: past the limit a
// request is refused with 429 and Retry-After before it acts, and the tool turns that into a
// RateLimitedError the runtime waits out: the refund agent refunds once, no attempt spent.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../db/testing/database";
import { RateLimitedError } from "../../lib/sdk/errors";
import { refundAgent } from "../agents/refund";
import { runtimeTestKit } from "../runtime/test-support";
import { refundTool } from "../tools/refund";
import { stripeErrorSchema } from "./payments-schemas";
import { type PaymentsService, startPaymentsService } from "./payments-service";
import { postRefund, refundForm } from "./test-helpers";

let service: PaymentsService;
const t = await setUpTestDatabase("payments_rate_limit");
const kit = runtimeTestKit(t.pool);

beforeEach(async () => {
  service = await startPaymentsService();
});
afterEach(async () => {
  await service.stop();
});

describe("the demo payments service's rate limit", () => {
  it("answers 429 with Retry-After past the limit in a second, acting on nothing", async () => {
    service.setFaults({ rateLimitPerSecond: 2 });
    const answers = [];
    for (let i = 0; i < 3; i++) {
      answers.push(await postRefund(service.url, refundForm(`rl-${i}`), { key: `k-rl-${i}` }));
    }
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    expect(answers[2]?.headers.get("retry-after")).toBe("1");
    expect(stripeErrorSchema.parse(answers[2]?.body).error.code).toBe("rate_limit");
    expect(service.refunds()).toHaveLength(2);
    expect(service.requests().map((r) => r.fault)).toEqual([null, null, "rateLimited"]);

    // The refused request does not count, and the key it carried stays usable.
    await new Promise((r) => setTimeout(r, 1_050));
    const again = await postRefund(service.url, refundForm("rl-2"), { key: "k-rl-2" });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
  });

  it("is set and cleared through the control API's faults", async () => {
    service.setFaults({ rateLimitPerSecond: 1 });
    await postRefund(service.url, refundForm("a"), { key: "k-a" });
    expect((await postRefund(service.url, refundForm("b"), { key: "k-b" })).status).toBe(429);
    service.setFaults({});
    expect((await postRefund(service.url, refundForm("b"), { key: "k-b" })).status).toBe(200);
  });

  it("makes the refund tool throw RateLimitedError with the provider's wait", async () => {
    service.setFaults({ rateLimitPerSecond: 1 });
    const tool = refundTool({
      paymentsUrl: service.url,
      apiKey: "sk_test_agent_ledger_demo",
      approvalThresholdCents: 100_000,
      ratePerSecond: 10,
    });
    expect(tool.rateLimit).toMatchObject({ limit: 10, periodMs: 1_000 });
    const args = {
      orderId: "o-1",
      paymentIntent: "pi_rl_1",
      amountCents: 500,
      currency: "usd",
      reason: "customer" as const,
    };
    const signal = new AbortController().signal;
    await tool.execute(args, { idempotencyKey: "key-1", signal });
    const refused = await tool
      .execute({ ...args, orderId: "o-2" }, { idempotencyKey: "key-2", signal })
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect((refused as RateLimitedError).retryAfterMs).toBe(1_000);
    expect(service.refunds()).toHaveLength(1);
  });
});

describe("the refund agent against a rate-limited payments service", () => {
  it("waits out the 429 in the queue and refunds once, without spending an attempt", async () => {
    // The service's second is a clock the test moves: however slow the box, the agent's request
    // falls in the second the other client's used up.
    let clock = Date.now();
    await service.stop();
    service = await startPaymentsService({ now: () => clock });
    service.setFaults({ rateLimitPerSecond: 1 });
    // Another client used this second's only request.
    expect((await postRefund(service.url, refundForm("other"), { key: "k-other" })).status).toBe(
      200,
    );
    const agent = refundAgent({
      paymentsUrl: service.url,
      apiKey: "sk_test_agent_ledger_demo",
      approvalThresholdCents: 100_000,
    });
    const input = { orderId: "ord-429", amountCents: 700, currency: "usd", reason: "late" };
    const id = await kit.enqueue(agent.name, input);
    expect((await kit.runOneAttempt("w-r", [agent]))?.outcome).toBe("requeued");
    expect(await kit.task(id)).toMatchObject({ status: "queued", attempts: 0 });
    const limited = (await kit.entries(id)).find((e) => e.kind === "effect.rate_limited");
    expect(limited?.data).toMatchObject({ tool: "refund", source: "provider", retryAfterMs: 1000 });

    await new Promise((r) => setTimeout(r, 1_050));
    clock += 1_050;
    await kit.release(id);
    expect((await kit.runOneAttempt("w-r", [agent]))?.outcome).toBe("succeeded");
    expect(await kit.task(id)).toMatchObject({ status: "succeeded", attempts: 1 });
    const mine = service.refunds().filter((r) => r.payment_intent === "pi_ord_429");
    expect(mine).toHaveLength(1);
    expect(service.requests().map((r) => r.fault)).toEqual([null, "rateLimited", null]);
  });
});
