// Scoped outages of the demo payments service (`outages`), and the control client that turns
// them on and off from another process: only matching payments fail, nothing is refunded for
// them, and taking one away leaves every other fault as it was.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  addOutages,
  PaymentsControlError,
  readPaymentsFaults,
  removeOutages,
  writePaymentsFaults,
} from "./payments-control";
import { stripeErrorSchema } from "./payments-schemas";
import { type PaymentsService, startPaymentsService } from "./payments-service";
import { postRefund, refundForm } from "./test-helpers";

let service: PaymentsService;

beforeEach(async () => {
  service = await startPaymentsService({ faults: { seed: 3, delayMs: 1 } });
});
afterEach(async () => {
  await service.stop();
});

const down = { paymentIntentPrefix: "pi_down_", status: 503, message: "The card network is down." };

describe("scoped outages", () => {
  it("fail only matching payments, every time, before the API acts", async () => {
    await addOutages(service.url, [down]);
    for (const key of ["k-1", "k-1", "k-2"]) {
      const failed = await postRefund(
        service.url,
        refundForm(key, { payment_intent: "pi_down_7" }),
        { key },
      );
      expect(failed.status).toBe(503);
      expect(stripeErrorSchema.parse(failed.body).error).toEqual({
        type: "api_error",
        message: "The card network is down.",
      });
    }
    const other = await postRefund(service.url, refundForm("k-3", { payment_intent: "pi_up_7" }), {
      key: "k-3",
    });
    expect(other.status).toBe(200);
    expect(service.refunds().map((r) => r.payment_intent)).toEqual(["pi_up_7"]);
    expect(service.requests().map((r) => r.fault)).toEqual(["outage", "outage", "outage", null]);

    // Over: the same key now reaches the API (the outage stored nothing under it).
    await removeOutages(service.url, ["pi_down_"]);
    const retried = await postRefund(
      service.url,
      refundForm("k-1", { payment_intent: "pi_down_7" }),
      { key: "k-1" },
    );
    expect(retried.status).toBe(200);
  });

  it("are added and removed without touching the other faults or another run's outages", async () => {
    const mine = { ...down, paymentIntentPrefix: "pi_mine_" };
    await addOutages(service.url, [down]);
    await addOutages(service.url, [mine]);
    expect(await readPaymentsFaults(service.url)).toEqual({
      seed: 3,
      delayMs: 1,
      outages: [down, mine],
    });
    await removeOutages(service.url, ["pi_mine_"]);
    expect(await readPaymentsFaults(service.url)).toEqual({ seed: 3, delayMs: 1, outages: [down] });
    await removeOutages(service.url, ["pi_down_"]);
    expect(await readPaymentsFaults(service.url)).toEqual({ seed: 3, delayMs: 1 });
  });

  it("refuses a malformed outage, and says when nothing or something else answers", async () => {
    await expect(
      writePaymentsFaults(service.url, { outages: [{ ...down, paymentIntentPrefix: "order_" }] }),
    ).rejects.toThrow(/PUT \/__control\/faults answered 400 \(invalid faults\)/);
    await expect(readPaymentsFaults("http://127.0.0.1:2")).rejects.toThrow(PaymentsControlError);
    await expect(readPaymentsFaults("http://127.0.0.1:2")).rejects.toThrow(
      "the demo payments service does not answer at http://127.0.0.1:2 (ECONNREFUSED)",
    );
  });
});
