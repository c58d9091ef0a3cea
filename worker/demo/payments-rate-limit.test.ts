// The demo payments service's rate limit and the refund tool's answer to it: past the limit a
// request is refused with 429 and Retry-After before it acts, and the tool turns that into a
// RateLimitedError the runtime waits out.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RateLimitedError } from "../../lib/sdk/errors";
import { refundTool } from "../tools/refund";
import { stripeErrorSchema } from "./payments-schemas";
import { type PaymentsService, startPaymentsService } from "./payments-service";
import { postRefund, refundForm } from "./test-helpers";

let service: PaymentsService;

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
