// The example agents against the demo receivers over real sockets: what reaches the mail
// server and the payments API, once per intent, even when the wire fails.

import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../db/testing/database";
import { operator } from "../../lib/domain/access";
import { approveTask } from "../../lib/server/commands/approve-task";
import { verifyLedger } from "../../lib/server/ledger/verify-ledger";
import { demoWorker, overdueInvoice } from "../demo/testing";

const t = await setUpTestDatabase("agents");
const demo = demoWorker(t.pool, { quickRetries: true });
const { run, until } = demo;

describe("invoice-reminder", () => {
  it("emails once, with the effect key as Message-ID and X-Agent-Ledger-Key", async () => {
    const invoiceId = overdueInvoice("inv_a");
    const id = await run("invoice-reminder", { invoiceId, customerEmail: "ada@example.com" });
    expect(await until(id, ["succeeded"])).toMatchObject({ result: { emailsSent: 1 } });
    const mails = demo.receivers.smtp.messages().filter((m) => m.to.includes("ada@example.com"));
    expect(mails).toHaveLength(1);
    const { rows } = await t.pool.query("select key from effects where task_id = $1", [id]);
    expect(mails[0]?.ledgerKey).toBe(rows[0].key);
    expect(mails[0]?.messageId).toBe(`<${rows[0].key}@agent-ledger.local>`);
  });

  it("a dropped connection after the server kept the mail: outcome unknown, a human decides, no second mail", async () => {
    demo.receivers.smtp.setFaults({ dropAfterAcceptRate: 1 });
    const invoiceId = overdueInvoice("inv_b");
    const id = await run("invoice-reminder", { invoiceId, customerEmail: "grace@example.com" });
    expect(await until(id, ["dead"])).toMatchObject({ dead_reason: "outcome_unknown" });
    demo.receivers.smtp.setFaults({});
    expect(
      demo.receivers.smtp.messages().filter((m) => m.to.includes("grace@example.com")),
    ).toHaveLength(1);
  });
});

describe("refund", () => {
  it("refunds once through the payments API with the key as Idempotency-Key", async () => {
    const id = await run("refund", {
      orderId: "ord_1",
      amountCents: 1_299,
      currency: "usd",
      reason: "damaged",
    });
    expect(await until(id, ["succeeded"])).toBeTruthy();
    const refunds = demo.receivers.payments
      .refunds()
      .filter((r) => r.metadata.order_id === "ord_1");
    expect(refunds).toHaveLength(1);
    expect(refunds[0]?.amount).toBe(1_299);
  });

  it("after the provider acted but the answer was lost, a retry reconciles instead of refunding again", async () => {
    demo.receivers.payments.setFaults({ dropAfterActRate: 1 });
    const id = await run("refund", {
      orderId: "ord_2",
      amountCents: 500,
      currency: "usd",
      reason: "duplicate charge",
    });
    await new Promise((r) => setTimeout(r, 300));
    demo.receivers.payments.setFaults({});
    expect(await until(id, ["succeeded"])).toBeTruthy();
    expect(
      demo.receivers.payments.refunds().filter((r) => r.metadata.order_id === "ord_2"),
    ).toHaveLength(1);
    const { rows } = await t.pool.query(
      "select kind, data from ledger_entries where task_id = $1 order by seq",
      [id],
    );
    expect(rows.find((r) => r.kind === "effect.outcome_unknown")?.data.action).toBe("reconcile");
    expect(rows.find((r) => r.kind === "effect.succeeded")?.data.reconciled).toBe(true);
  });

  it("a refund above the threshold waits for approval, then refunds exactly once", async () => {
    const id = await run("refund", {
      orderId: "ord_3",
      amountCents: 48_000,
      currency: "usd",
      reason: "customer",
    });
    const parked = await until(id, ["awaiting_approval"]);
    expect(
      demo.receivers.payments
        .requests()
        .filter(
          (r) =>
            r.path === "/v1/refunds" &&
            r.method === "POST" &&
            JSON.stringify(r.params).includes("ord_3"),
        ),
    ).toHaveLength(0);
    expect(
      (
        await approveTask(t.pool, operator("rita@example.com"), {
          taskId: id,
          version: parked.version,
        })
      ).ok,
    ).toBe(true);
    // A refund moves money: one reviewer's yes is not enough, and nothing is refunded yet.
    const waiting = await until(id, ["awaiting_approval"]);
    expect(
      demo.receivers.payments.refunds().filter((r) => r.metadata.order_id === "ord_3"),
    ).toHaveLength(0);
    const same = await approveTask(t.pool, operator("rita@example.com"), {
      taskId: id,
      version: waiting.version,
    });
    expect(same.ok).toBe(false);
    const current = await until(id, ["awaiting_approval"]);
    expect(
      (
        await approveTask(t.pool, operator("sam@example.com"), {
          taskId: id,
          version: current.version,
        })
      ).ok,
    ).toBe(true);
    expect(await until(id, ["succeeded"])).toBeTruthy();
    expect(
      demo.receivers.payments.refunds().filter((r) => r.metadata.order_id === "ord_3"),
    ).toHaveLength(1);
  });

  it("the ledger verifies after all of it", async () => {
    expect((await verifyLedger(t.pool)).problems).toEqual([]);
  });
});
