import { describe, expect, it } from "vitest";
import { createDice, pickFault } from "./fault-dice";

describe("createDice", () => {
  it("gives the same numbers for the same seed, other numbers for another", () => {
    const a = createDice(42);
    const b = createDice(42);
    const c = createDice(43);
    const seqA = Array.from({ length: 5 }, a);
    expect(Array.from({ length: 5 }, b)).toEqual(seqA);
    expect(Array.from({ length: 5 }, c)).not.toEqual(seqA);
    for (const n of seqA) expect(n >= 0 && n < 1).toBe(true);
  });
});

describe("pickFault", () => {
  it("never picks a zero rate and always picks a rate of 1", () => {
    const dice = createDice(1);
    for (let i = 0; i < 100; i++) {
      expect(
        pickFault(dice, [
          ["a", 0],
          ["b", undefined],
        ]),
      ).toBeNull();
      expect(
        pickFault(dice, [
          ["a", 0],
          ["b", 1],
        ]),
      ).toBe("b");
    }
  });

  it("hits each fault close to its rate", () => {
    const dice = createDice(3);
    const counts = { a: 0, b: 0, none: 0 };
    for (let i = 0; i < 10_000; i++) {
      const fault = pickFault(dice, [
        ["a", 0.2],
        ["b", 0.3],
      ] as const);
      counts[fault ?? "none"]++;
    }
    expect(counts.a / 10_000).toBeCloseTo(0.2, 1);
    expect(counts.b / 10_000).toBeCloseTo(0.3, 1);
    expect(counts.none / 10_000).toBeCloseTo(0.5, 1);
  });
});
