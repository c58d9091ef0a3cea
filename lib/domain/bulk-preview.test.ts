import { describe, expect, it } from "vitest";
import { aggregatePreviews, withAmounts } from "./bulk-preview";
import { planReplay, planReview } from "./replay-plan";

const preview = (status: "succeeded" | "failed" | "started", money: boolean, live = false) =>
  planReview({
    plan: planReplay(
      [{ seq: 1, kind: "tool", name: "refund" }],
      [{ stepSeq: 1, tool: "refund", key: `k-${status}`, status, live }],
      1,
    ),
    action: "replay",
    money: new Set(money ? ["refund"] : []),
    catalogKnown: true,
    keptTools: [],
    pendingTools: [],
  });

describe("aggregatePreviews", () => {
  it("adds up what each task's replay would do", () => {
    const agg = aggregatePreviews([
      preview("failed", true),
      preview("failed", true),
      preview("succeeded", true),
      preview("started", false),
      preview("started", false, true),
      null,
    ]);
    expect(agg).toMatchObject({
      tasks: 6,
      skipped: 1,
      effects: { act: 2, dedupe: 1, unknown: 1, inFlight: 1, money: 2 },
      twoPersonTasks: 2,
      twoPerson: true,
    });
    expect(agg.reasons).toEqual([{ reason: "refund (step N) moves money and will act", tasks: 2 }]);
  });

  it("needs one reviewer when no task's preview needs two", () => {
    const agg = aggregatePreviews([preview("succeeded", true), preview("failed", false)]);
    expect(agg.twoPerson).toBe(false);
    expect(agg.effects).toEqual({ act: 1, dedupe: 1, unknown: 0, inFlight: 0, money: 0 });
  });
});

describe("the money a bulk would move", () => {
  const declared = new Map([["refund", { amount: "amountCents", currency: "currency" }]]);
  const args = new Map([
    ["k-failed", { amountCents: 1999, currency: "usd" }],
    ["k-succeeded", { amountCents: 5000, currency: "usd" }],
  ]);

  it("is read from each acting money effect's arguments, where the tool declares them", () => {
    const member = withAmounts(preview("failed", true), args, declared);
    expect(member.amounts).toEqual({
      totals: [{ currency: "usd", minor: 1999, effects: 1 }],
      unknown: 0,
    });
    // A deduplicated effect moves nothing again.
    expect(withAmounts(preview("succeeded", true), args, declared).amounts).toEqual({
      totals: [],
      unknown: 0,
    });
    // A tool that only says `money: true`: the effect moves an amount nobody declared.
    expect(withAmounts(preview("failed", true), args, new Map()).amounts).toEqual({
      totals: [],
      unknown: 1,
    });
  });

  it("is summed per currency over the set, with the unknown counted apart", () => {
    const eur = new Map([["k-failed", { amountCents: 250, currency: "EUR" }]]);
    const agg = aggregatePreviews([
      withAmounts(preview("failed", true), args, declared),
      withAmounts(preview("failed", true), args, declared),
      withAmounts(preview("failed", true), eur, declared),
      withAmounts(preview("failed", true), new Map(), declared),
      withAmounts(preview("failed", false), args, declared),
      null,
    ]);
    expect(agg.effects.money).toBe(4);
    expect(agg.amounts).toEqual({
      totals: [
        { currency: "usd", minor: 3998, effects: 2 },
        { currency: "eur", minor: 250, effects: 1 },
      ],
      unknown: 1,
    });
  });
});
