import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  paymentsFaultsSchema,
  recordedRequestSchema,
  refundSchema,
  stripeErrorSchema,
} from "./payments-schemas";
import { type PaymentsService, startPaymentsService } from "./payments-service";
import { postRefund, refundForm } from "./test-helpers";

let service: PaymentsService;

beforeEach(async () => {
  service = await startPaymentsService();
});
afterEach(async () => {
  await service.stop();
});

describe("fault injection", () => {
  it("502 acts on nothing and leaves the key usable", async () => {
    service.setFaults({ status502Rate: 1 });
    const failed = await postRefund(service.url, refundForm("intent-502"), { key: "k-502" });
    expect(failed.status).toBe(502);
    expect(stripeErrorSchema.parse(failed.body).error.type).toBe("api_error");
    expect(service.refunds()).toEqual([]);

    service.setFaults({});
    const retried = await postRefund(service.url, refundForm("intent-502"), { key: "k-502" });
    expect(retried.status).toBe(200);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    expect(service.refunds()).toHaveLength(1);
    expect(service.requests().map((r) => [r.fault, r.status, r.createdRefund])).toEqual([
      ["status502", 502, false],
      [null, 200, true],
    ]);
  });

  it("dropAfterAct creates the refund; a retry with the key gets the stored result", async () => {
    service.setFaults({ dropAfterActRate: 1 });
    await expect(
      postRefund(service.url, refundForm("intent-drop"), { key: "k-drop" }),
    ).rejects.toThrow("fetch failed");
    expect(service.refunds()).toHaveLength(1);
    const [created] = service.refunds();

    // Still faulty: the retry is answered from the stored result, and dropped again.
    await expect(
      postRefund(service.url, refundForm("intent-drop"), { key: "k-drop" }),
    ).rejects.toThrow("fetch failed");
    expect(service.refunds()).toHaveLength(1);

    service.setFaults({});
    const retried = await postRefund(service.url, refundForm("intent-drop"), { key: "k-drop" });
    expect(retried.status).toBe(200);
    expect(retried.headers.get("idempotent-replayed")).toBe("true");
    expect(refundSchema.parse(retried.body).id).toBe(created?.id);
    expect(service.refunds()).toHaveLength(1);
    expect(service.requests().map((r) => [r.outcome, r.createdRefund, r.replayed])).toEqual([
      ["dropped", true, false],
      ["dropped", false, true],
      ["answered", false, true],
    ]);
  });

  it("a timeout without acting never answers and creates nothing", async () => {
    service.setFaults({ timeoutRate: 1, timeoutMs: 200 });
    await expect(postRefund(service.url, refundForm("intent-to"), { key: "k-to" })).rejects.toThrow(
      "fetch failed",
    );
    expect(service.refunds()).toEqual([]);
    expect(service.requests()).toMatchObject([{ fault: "timeout", outcome: "dropped" }]);

    service.setFaults({});
    const retried = await postRefund(service.url, refundForm("intent-to"), { key: "k-to" });
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    expect(service.refunds()).toHaveLength(1);
  });

  it("a timeout after acting keeps the refund and its key", async () => {
    service.setFaults({ timeoutRate: 1, timeoutMs: 200, actBeforeTimeout: true });
    await expect(postRefund(service.url, refundForm("intent-ta"), { key: "k-ta" })).rejects.toThrow(
      "fetch failed",
    );
    expect(service.refunds()).toHaveLength(1);

    service.setFaults({});
    const retried = await postRefund(service.url, refundForm("intent-ta"), { key: "k-ta" });
    expect(retried.headers.get("idempotent-replayed")).toBe("true");
    expect(service.refunds()).toHaveLength(1);
  });

  it("records a client that gives up during a timeout", async () => {
    service.setFaults({ timeoutRate: 1, timeoutMs: 10_000 });
    await expect(
      postRefund(service.url, refundForm("intent-gone"), { signal: AbortSignal.timeout(100) }),
    ).rejects.toThrow("aborted");
    await expect.poll(() => service.requests()[0]?.outcome).toBe("client_gone");
  });

  it("goes on with a request whose client gave up during the delay", async () => {
    service.setFaults({ delayMs: 400 });
    await expect(
      postRefund(service.url, refundForm("intent-impatient"), {
        key: "k-impatient",
        signal: AbortSignal.timeout(100),
      }),
    ).rejects.toThrow("aborted");
    await expect.poll(() => service.requests()[0]?.outcome).toBe("client_gone");
    expect(service.requests()[0]).toMatchObject({ status: 200, createdRefund: true });
    expect(service.refunds()).toHaveLength(1);
  });

  it("delays answers by delayMs", async () => {
    service.setFaults({ delayMs: 250 });
    const started = performance.now();
    await postRefund(service.url, refundForm("intent-slow"));
    expect(performance.now() - started).toBeGreaterThanOrEqual(240);
  });

  it("repeats the same faults for the same seed", async () => {
    const run = async () => {
      service.setFaults({ seed: 7, status502Rate: 0.5 });
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) {
        statuses.push((await postRefund(service.url, refundForm(`seeded-${i}`))).status);
      }
      return statuses;
    };
    const first = await run();
    expect(first).toContain(200);
    expect(first).toContain(502);
    expect(await run()).toEqual(first);
  });

  it("refuses rates that add up past 1", () => {
    expect(() => service.setFaults({ status502Rate: 0.6, dropAfterActRate: 0.6 })).toThrow();
    expect(paymentsFaultsSchema.safeParse({ timeoutRate: 2 }).success).toBe(false);
  });
});

describe("control API", () => {
  const requestsReply = z.object({ requests: z.array(recordedRequestSchema) });
  const refundsReply = z.object({ refunds: z.array(refundSchema) });

  it("shows requests and refunds to a plain fetch", async () => {
    await postRefund(service.url, refundForm("intent-ctl"), { key: "k-ctl" });
    await postRefund(service.url, refundForm("intent-ctl"), { key: "k-ctl" });
    const { requests } = requestsReply.parse(
      await (await fetch(`${service.url}/__control/requests`)).json(),
    );
    expect(requests.filter((r) => r.params["metadata[intent_key]"] === "intent-ctl")).toHaveLength(
      2,
    );
    expect(requests.map((r) => r.seq)).toEqual([1, 2]);
    const { refunds } = refundsReply.parse(
      await (await fetch(`${service.url}/__control/refunds`)).json(),
    );
    expect(refunds.map((r) => r.metadata.intent_key)).toEqual(["intent-ctl"]);
  });

  it("sets faults from JSON and refuses invalid ones", async () => {
    const put = (body: string) =>
      fetch(`${service.url}/__control/faults`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body,
      });
    const ok = await put(JSON.stringify({ status502Rate: 1 }));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ faults: { status502Rate: 1 } });
    expect((await postRefund(service.url, refundForm("x"))).status).toBe(502);

    expect((await put(JSON.stringify({ status502Rate: "always" }))).status).toBe(400);
    expect((await put(JSON.stringify({ explode: true }))).status).toBe(400);
    expect((await put("{not json")).status).toBe(400);
    const current = await (await fetch(`${service.url}/__control/faults`)).json();
    expect(current).toEqual({ faults: { status502Rate: 1 } });
  });

  it("resets records, refunds and keys", async () => {
    await postRefund(service.url, refundForm("intent-r"), { key: "k-reset" });
    const res = await fetch(`${service.url}/__control/reset`, { method: "POST" });
    expect(res.status).toBe(200);
    expect(service.requests()).toEqual([]);
    expect(service.refunds()).toEqual([]);
    const again = await postRefund(service.url, refundForm("intent-r"), { key: "k-reset" });
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(service.refunds()).toHaveLength(1);
  });

  it("does not record control calls and 404s unknown ones", async () => {
    expect((await fetch(`${service.url}/__control/nothing`)).status).toBe(404);
    expect((await fetch(`${service.url}/__control/constructor`)).status).toBe(404);
    expect(service.requests()).toEqual([]);
  });
});
