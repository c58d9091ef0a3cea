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

  it("says how long a rate limit held a call back and where the task waited", () => {
    const limit = {
      tool: "refund",
      step: 2,
      attempt: 1,
      source: "limit",
      limit: 10,
      periodMs: 1000,
    };
    expect(
      summarizeEntry({
        kind: "effect.rate_limited",
        actor: "worker:w",
        data: { ...limit, waitMs: 800, handedBack: false },
      }),
    ).toBe(
      "refund · waited 800 ms for refund's rate limit (10 calls per 1 s) · step: 2 · attempt: 1",
    );
    expect(
      summarizeEntry({
        kind: "effect.rate_limited",
        actor: "worker:w",
        data: { ...limit, waitMs: 45_000, handedBack: true, bucketKey: "m-7" },
      }),
    ).toBe(
      "refund · back in the queue for 45000 ms for refund's rate limit (10 calls per 1 s per key) · key: m-7 · step: 2 · attempt: 1",
    );
    expect(
      summarizeEntry({
        kind: "effect.rate_limited",
        actor: "worker:w",
        data: {
          tool: "refund",
          step: 2,
          attempt: 1,
          source: "provider",
          retryAfterMs: 1000,
          count: 3,
        },
      }),
    ).toBe(
      "refund · the provider answered 429 (3 for this effect): back in the queue for 1000 ms · step: 2 · attempt: 1",
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
    // The claim carried by its result: the args it was made with, and what came back.
    expect(
      summarizeEntry({
        kind: "effect.succeeded",
        actor: "worker:w1",
        data: {
          tool: "refund",
          result: { refundId: "re_9" },
          effectStarted: { at: "2026-12-07T08:00:00.000Z", args: { orderId: "o-9", amount: 2500 } },
        },
      }),
    ).toBe("refund · refund: re_9 · order: o-9 · amount: 2500");
  });

  it("says what a task waits for, and which event reached it from whom", () => {
    expect(
      summarizeEntry({
        kind: "event.waiting",
        actor: "worker:w1",
        data: { name: "order.paid", match: { orderId: "o-1" }, deadline: null, step: 2 },
      }),
    ).toBe('order.paid · match: {"orderId":"o-1"} · step: 2');
    expect(
      summarizeEntry({
        kind: "event.delivered",
        actor: "user:ada@example.com",
        data: { name: "order.paid", event: "e-1", payload: { orderId: "o-1" }, step: 2 },
      }),
    ).toBe('order.paid · payload: {"orderId":"o-1"} · event: e-1 · by: ada@example.com · step: 2');
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

  it("names the schedule occurrence a task is, and who changed a schedule", () => {
    expect(
      summarizeEntry({
        kind: "task.enqueued",
        actor: "schedule:digest/nightly",
        data: {
          agent: "digest",
          input: {},
          schedule: { id: "s1", name: "nightly", occurrence: "2026-05-04T17:00:00.000Z" },
        },
      }),
    ).toBe("agent: digest · schedule: nightly @ 2026-05-04T17:00:00.000Z");
    expect(
      summarizeEntry({
        kind: "schedule.paused",
        actor: "user:ada@example.com",
        data: {
          before: { agent: "digest", name: "nightly", cron: "0 2 * * *", paused: false },
          after: { agent: "digest", name: "nightly", cron: "0 2 * * *", paused: true },
        },
      }),
    ).toBe("by: ada@example.com · digest/nightly · cron: 0 2 * * *");
    expect(
      summarizeEntry({
        kind: "schedule.missed",
        actor: "schedule:digest/nightly",
        data: { agent: "digest", name: "nightly", missed: "skip", skipped: 10 },
      }),
    ).toMatch(/digest\/nightly · skipped: 10$/);
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
    expect(
      summarizeEntry({
        kind: "ledger.archived",
        actor: "cli:ops",
        data: {
          archiveId: "0b7e",
          before: "2026-01-01T00:00:00.000Z",
          streams: 3,
          entries: 6,
          headsDigest: "ef".repeat(32),
          statementDigest: "12".repeat(32),
        },
      }),
    ).toBe(
      "archive: 0b7e · streams: 3 · entries: 6 · closed before: 2026-01-01T00:00:00.000Z · statement: 121212121212…",
    );
    expect(
      summarizeEntry({
        kind: "ledger.detached",
        actor: "cli:ops",
        data: {
          month: "2026-01",
          streams: 3,
          entries: 6,
          archives: [{ archiveId: "0b7e", statementDigest: "12".repeat(32) }],
        },
      }),
    ).toBe("month: 2026-01 · streams: 3 · entries removed: 6 · archives: 1");
  });
});

describe("summarizeEntry: corrections and policy changes read before → after", () => {
  const before = { orderId: "ord_1", currency: "US dollars", amountCents: 900 };
  const after = { orderId: "ord_1", currency: "usd", amountCents: 900 };

  it("names a correction's fields before → after, who proposed it and who confirmed it", () => {
    expect(
      summarizeEntry({
        kind: "task.input_corrected",
        actor: "user:bob@example.com",
        data: {
          before,
          after,
          fromStep: 1,
          note: "a display name, not a code",
          proposedBy: "user:alice@example.com",
          confirmedBy: "user:bob@example.com",
        },
      }),
    ).toBe(
      'currency "US dollars" → "usd" · proposed by: alice@example.com · confirmed by: bob@example.com · from step: 1 · why: a display name, not a code',
    );
    // One reviewer was enough: one name.
    expect(
      summarizeEntry({
        kind: "task.input_corrected",
        actor: "user:alice@example.com",
        data: {
          before,
          after,
          fromStep: 2,
          proposedBy: "user:alice@example.com",
          confirmedBy: null,
        },
      }),
    ).toBe('currency "US dollars" → "usd" · by: alice@example.com · from step: 2');
  });

  it("reads entries written before proposedBy, from twoPerson or the actor", () => {
    expect(
      summarizeEntry({
        kind: "task.input_corrected",
        actor: "user:bob@example.com",
        data: {
          before,
          after,
          fromStep: 1,
          twoPerson: { requestedBy: "user:alice@example.com", confirmedBy: "user:bob@example.com" },
        },
      }),
    ).toBe(
      'currency "US dollars" → "usd" · proposed by: alice@example.com · confirmed by: bob@example.com · from step: 1',
    );
  });

  it("cuts long values, names at most three fields and counts the rest, keeps markup as text", () => {
    const line = summarizeEntry({
      kind: "task.input_corrected",
      actor: "user:a@example.com",
      data: {
        before: { a: "x".repeat(100), b: 1, c: 1, d: 1, e: "<b>" },
        after: { a: "y", b: 2, c: 2, d: 2, e: "<script>alert(1)</script>" },
        proposedBy: "user:a@example.com",
        confirmedBy: null,
      },
    });
    expect(line).toBe(`a "${"x".repeat(38)}… → "y", b 1 → 2, c 1 → 2, 2 more · by: a@example.com`);
    expect(
      summarizeEntry({
        kind: "task.input_corrected",
        actor: "u",
        data: { before: { e: "<b>" }, after: { e: "<script>alert(1)</script>", f: 1 } },
      }),
    ).toBe('e "<b>" → "<script>alert(1)</script>", f (none) → 1 · by: u');
  });

  it("shows a redacted value as the entry holds it", () => {
    expect(
      summarizeEntry({
        kind: "task.input_corrected",
        actor: "u",
        data: { before: { card: "[redacted]", to: "a" }, after: { card: "[redacted]", to: "b" } },
      }),
    ).toBe('to "a" → "b" · by: u');
  });

  it("names the correction a first reviewer asks a second to confirm", () => {
    expect(
      summarizeEntry({
        kind: "review.requested",
        actor: "user:alice@example.com",
        data: { action: "replay", fromStep: 1, requestId: 7, correction: { before, after } },
      }),
    ).toBe(
      'by: alice@example.com · action: replay · correction: currency "US dollars" → "usd" · step: 1 · request: 7',
    );
  });

  it("names a policy change's fields with the value in force before and where it came from", () => {
    expect(
      summarizeEntry({
        kind: "policy.changed",
        actor: "user:admin@example.com",
        data: {
          scope: "agent:refund",
          before: null,
          after: { maxAttempts: 5, attemptTimeoutMs: 30_000 },
          inForce: {
            maxAttempts: {
              before: { value: 6, source: "code" },
              after: { value: 5, source: "agent" },
            },
            attemptTimeoutMs: {
              before: { value: 60_000, source: "global" },
              after: { value: 30_000, source: "agent" },
            },
          },
        },
      }),
    ).toBe(
      "by: admin@example.com · scope: agent:refund · Max attempts 6 (agent code) → 5, Attempt timeout 60 s (global) → 30 s",
    );
  });

  it("reads policy changes written before what was in force was recorded", () => {
    expect(
      summarizeEntry({
        kind: "policy.changed",
        actor: "user:admin@example.com",
        data: { scope: "agent:refund", before: {}, after: { maxAttempts: 5 } },
      }),
    ).toBe("by: admin@example.com · scope: agent:refund · Max attempts inherited → 5");
    expect(
      summarizeEntry({
        kind: "policy.changed",
        actor: "user:admin@example.com",
        data: { scope: "global", before: { maxAttempts: 5 }, after: { maxAttempts: 5 } },
      }),
    ).toBe("by: admin@example.com · scope: global · no field changed");
  });
});
