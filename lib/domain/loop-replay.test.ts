// The loop part of a replay plan: which generateText turn is asked again, counted from the
// first turn at or after the replayed step, and the proposals after it in a reviewer's words.
import { describe, expect, it } from "vitest";
import { loopNote, planLoopReplay, turnOf } from "./loop-replay";

const steps = [
  { seq: 1, kind: "model", name: "turn 1" },
  { seq: 2, kind: "tool", name: "lookup_order" },
  { seq: 3, kind: "model", name: "turn 2" },
  { seq: 4, kind: "tool", name: "refund" },
  { seq: 5, kind: "model", name: "turn 3" },
];
const refund = {
  step: 4,
  tool: "refund",
  intent: { orderId: "A-1" },
  amount: { currency: "usd", minor: 4_000 },
  outcome: "dedupe" as const,
};

describe("turnOf", () => {
  it("reads a generateText turn, and nothing else", () => {
    expect(turnOf({ kind: "model", name: "turn 12" })).toBe(12);
    expect(turnOf({ kind: "model", name: "model" })).toBeNull();
    expect(turnOf({ kind: "step", name: "turn 2" })).toBeNull();
  });
});

describe("planLoopReplay", () => {
  it("asks again from the first turn at or after the step, with the proposals after that turn", () => {
    const plan = planLoopReplay(
      steps.filter((s) => s.seq >= 3),
      [refund],
    );
    expect(plan).toMatchObject({ askedFrom: 2, keptTurns: 1, proposals: [refund] });
  });

  it("replays a tool step between turns from its journaled turn: the model is asked from the next", () => {
    const plan = planLoopReplay(
      steps.filter((s) => s.seq >= 4),
      [refund],
    );
    // The refund at step 4 comes back from turn 2's journaled decision: not a new proposal.
    expect(plan).toMatchObject({ askedFrom: 3, keptTurns: 2, proposals: [] });
    expect(plan?.note).toBe(
      "Turns 1–2 come from the journal; from turn 3 the model is asked again: any tool call it proposes acts for the first time.",
    );
  });

  it("is null when no turn runs again", () => {
    expect(planLoopReplay([{ seq: 6, kind: "tool", name: "notify" }], [])).toBeNull();
  });
});

describe("loopNote", () => {
  it("names each earlier proposal with its intent and amount and what a repeat does", () => {
    expect(
      loopNote({
        askedFrom: 1,
        keptTurns: 0,
        proposals: [
          refund,
          { step: 6, tool: "notify", intent: "ada", amount: null, outcome: "outcome_unknown" },
        ],
      }),
    ).toBe(
      "No turn comes from the journal; from turn 1 the model is asked again: " +
        "the refund it proposed before (orderId A-1, USD 40.00) deduplicates if proposed again with the same intent; " +
        "the notify it proposed before (ada) has an unknown outcome: proposed again, it is reconciled or goes to a person; " +
        "a proposal with another intent acts, and the same intent with other arguments is a payload mismatch.",
    );
  });
});
