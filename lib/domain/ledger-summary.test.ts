import { describe, expect, it } from "vitest";
import { summarizeEntry } from "./ledger-summary";

describe("summarizeEntry", () => {
  it("names an effect's tool, recipient and Message-ID", () => {
    expect(
      summarizeEntry({
        kind: "effect.succeeded",
        actor: "worker:w1",
        data: {
          tool: "send_email",
          step: 2,
          attempt: 1,
          result: { to: "ada@example.com", messageId: "<abc@agent-ledger.local>" },
        },
      }),
    ).toBe(
      "send_email · to: ada@example.com · Message-ID: <abc@agent-ledger.local> · step: 2 · attempt: 1",
    );
  });

  it("names a refund's id and a started effect's arguments", () => {
    expect(
      summarizeEntry({
        kind: "effect.succeeded",
        actor: "worker:w1",
        data: { tool: "refund", result: { refundId: "re_123" } },
      }),
    ).toBe("refund · refund: re_123");
    expect(
      summarizeEntry({
        kind: "effect.started",
        actor: "worker:w1",
        data: { tool: "refund", args: { orderId: "o-9", amount: 2500 } },
      }),
    ).toBe("refund · order: o-9 · amount: 2500");
  });

  it("says who decided a review and why", () => {
    expect(
      summarizeEntry({
        kind: "review.rejected",
        actor: "user:rita@example.com",
        data: { from: "dead", deadReason: "exhausted", reason: "customer\nwithdrew" },
      }),
    ).toBe("by: rita@example.com · from: dead · why: customer withdrew");
  });

  it("says a task's agent and what happened to it", () => {
    expect(
      summarizeEntry({
        kind: "task.enqueued",
        actor: "token:ci",
        data: { agent: "invoice-reminder", input: { invoiceId: "inv-1" } },
      }),
    ).toBe("agent: invoice-reminder");
    expect(
      summarizeEntry({
        kind: "task.dead_lettered",
        actor: "worker:w1",
        data: { attempt: 3, reason: "exhausted", error: { message: "SMTP 451" } },
      }),
    ).toBe("reason: exhausted · error: SMTP 451");
  });

  it("shows a hidden payload's marker, and shortens long values", () => {
    expect(
      summarizeEntry({
        kind: "effect.succeeded",
        actor: "w",
        data: "[hidden: needs payloads:read]",
      }),
    ).toBe("[hidden: needs payloads:read]");
    const line = summarizeEntry({
      kind: "note.added",
      actor: "u",
      data: { note: "x".repeat(200) },
    });
    expect(line).toHaveLength("note: ".length + 160);
    expect(line.endsWith("…")).toBe(true);
  });

  it("falls back to an unknown kind's scalar fields", () => {
    expect(
      summarizeEntry({
        kind: "demo.seeded",
        actor: "system",
        data: { tasks: 16, nested: { a: 1 } },
      }),
    ).toBe("tasks: 16");
  });

  it("says which streams a checkpoint's heads chunk covers, and what a checkpoint holds", () => {
    expect(
      summarizeEntry({
        kind: "ledger.checkpoint_heads",
        actor: "cron",
        // The screen passes the data without its heads list.
        data: { index: 3, first: "task:0a", last: "task:3f", count: 10000, digest: "d" },
      }),
    ).toBe("heads of streams task:0a … task:3f (10000)");
    expect(
      summarizeEntry({
        kind: "ledger.checkpoint",
        actor: "cron",
        data: {
          chunks: [{}, {}],
          digest: "ab".repeat(32),
          statement: { streams: 12000 },
          signature: "s",
        },
      }),
    ).toBe("streams: 12000 · chunks: 2 · signed · digest: abababababab…");
    expect(
      summarizeEntry({
        kind: "ledger.checkpoint",
        actor: "old",
        data: { streams: [{}, {}, {}], digest: "cd".repeat(32) },
      }),
    ).toBe("streams: 3 · unsigned · digest: cdcdcdcdcdcd…");
  });
});
