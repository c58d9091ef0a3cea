// A bulk action's counts say what they count: before a second reviewer confirms, the one count
// is the whole set waiting, worded for who reads it; never outcomes that are all 0.
import { describe, expect, it } from "vitest";
import { type BulkCounts, bulkCountLines } from "./bulk-counts";

const none: BulkCounts = {
  pending: 120,
  done: 0,
  waiting: 0,
  taken: 0,
  refused: 0,
  failed: 0,
  skipped: 0,
};
const waiting = { status: "awaiting_second" as const, memberCount: 120, counts: none };

describe("the counts of a bulk action that waits for a second reviewer", () => {
  it("name the whole set as waiting for the reader who may confirm it", () => {
    expect(bulkCountLines(waiting, { mayConfirm: true, froze: false })).toEqual([
      { key: "awaiting", text: "120 waiting for your confirmation", n: 120 },
    ]);
  });

  it("tell the one who froze it that someone else confirms, and an onlooker who", () => {
    expect(bulkCountLines(waiting, { mayConfirm: false, froze: true })[0]?.text).toBe(
      "120 waiting for a second, different reviewer (you froze them)",
    );
    expect(bulkCountLines(waiting, { mayConfirm: false, froze: false })[0]?.text).toBe(
      "120 waiting for a second reviewer",
    );
  });

  it("never show an outcome count of 0 while nothing was acted on", () => {
    const lines = bulkCountLines(waiting, { mayConfirm: true, froze: false });
    expect(lines.some((l) => l.n === 0)).toBe(false);
    expect(
      bulkCountLines(
        { ...waiting, memberCount: 1_000, counts: { ...none, pending: 1_000 } },
        { mayConfirm: true, froze: false },
      )[0]?.text,
    ).toBe("1,000 waiting for your confirmation");
  });
});

describe("the counts of a bulk action once it runs", () => {
  it("say each outcome and what is not acted on yet", () => {
    const lines = bulkCountLines(
      {
        status: "running",
        memberCount: 120,
        counts: { ...none, pending: 20, done: 90, taken: 10 },
      },
      { mayConfirm: false, froze: false },
    );
    expect(lines.map((l) => l.text)).toEqual([
      "90 done",
      "0 now wait for a second reviewer of their own",
      "10 taken by another reviewer first",
      "0 refused by the per-task checks",
      "0 failed",
      "0 skipped, never acted on",
      "20 not acted on yet",
    ]);
  });

  it("leave out 'not acted on yet' once every member has an outcome", () => {
    const lines = bulkCountLines(
      { status: "declined", memberCount: 3, counts: { ...none, pending: 0, skipped: 3 } },
      { mayConfirm: false, froze: true },
    );
    expect(lines.map((l) => l.key)).not.toContain("pending");
    expect(lines.find((l) => l.key === "skipped")?.text).toBe("3 skipped, never acted on");
  });
});
