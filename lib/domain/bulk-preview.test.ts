import { describe, expect, it } from "vitest";
import { aggregatePreviews } from "./bulk-preview";
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
