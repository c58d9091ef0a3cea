// Amounts read from a money tool's declared arguments and summed per currency: what a reviewer
// reads before confirming a replay of many refunds.
import { describe, expect, it } from "vitest";
import {
  addTotals,
  formatCostUsd,
  formatMoney,
  moneyArgsOf,
  moneyOf,
  movesMoney,
  sumMoney,
} from "./money";

const declared = { amount: "amountCents", currency: "currency" };

describe("a tool's money declaration", () => {
  it("is true, or the paths of its amount and currency", () => {
    expect(movesMoney(true)).toBe(true);
    expect(movesMoney(declared)).toBe(true);
    expect(movesMoney(false)).toBe(false);
    expect(movesMoney(undefined)).toBe(false);
    expect(moneyArgsOf(true)).toBeNull();
    expect(moneyArgsOf(declared)).toEqual(declared);
  });
});

describe("moneyOf", () => {
  it("reads the declared paths, nested ones too, and lower-cases the code", () => {
    expect(moneyOf({ amountCents: 1250, currency: "USD" }, declared)).toEqual({
      currency: "usd",
      minor: 1250,
    });
    expect(
      moneyOf(
        { price: { minor: 99, code: "eur" } },
        { amount: "price.minor", currency: "price.code" },
      ),
    ).toEqual({ currency: "eur", minor: 99 });
  });

  it("says nothing when the arguments do not say it plainly", () => {
    expect(moneyOf({ currency: "usd" }, declared)).toBeNull();
    expect(moneyOf({ amountCents: "[redacted]", currency: "usd" }, declared)).toBeNull();
    expect(moneyOf({ amountCents: 12.5, currency: "usd" }, declared)).toBeNull();
    expect(moneyOf({ amountCents: 100, currency: "dollars" }, declared)).toBeNull();
    expect(moneyOf(null, declared)).toBeNull();
  });
});

describe("sumMoney", () => {
  it("adds per currency, never across currencies, and counts the unknown apart", () => {
    expect(
      sumMoney([
        { currency: "usd", minor: 1000 },
        { currency: "eur", minor: 500 },
        { currency: "usd", minor: 2500 },
        null,
        { currency: "usd", minor: 1 },
      ]),
    ).toEqual({
      totals: [
        { currency: "usd", minor: 3501, effects: 3 },
        { currency: "eur", minor: 500, effects: 1 },
      ],
      unknown: 1,
    });
    expect(sumMoney([])).toEqual({ totals: [], unknown: 0 });
  });

  it("adds sums already made (each task's) into the set's", () => {
    expect(
      addTotals([
        { totals: [{ currency: "usd", minor: 100, effects: 1 }], unknown: 0 },
        {
          totals: [
            { currency: "usd", minor: 50, effects: 1 },
            { currency: "jpy", minor: 700, effects: 1 },
          ],
          unknown: 2,
        },
      ]),
    ).toEqual({
      totals: [
        { currency: "usd", minor: 150, effects: 2 },
        { currency: "jpy", minor: 700, effects: 1 },
      ],
      unknown: 2,
    });
  });
});

describe("formatMoney", () => {
  it("writes the code and the currency's own decimals", () => {
    expect(formatMoney(1234567, "usd")).toBe("USD 12,345.67");
    expect(formatMoney(700, "jpy")).toBe("JPY 700");
    expect(formatMoney(1234, "kwd")).toBe("KWD 1.234");
    expect(formatMoney(5, "xyz")).toBe("XYZ 0.05");
  });
});

describe("formatCostUsd", () => {
  it("shows cents at least and a call's fraction of a cent up to six decimals", () => {
    expect(formatCostUsd(0)).toBe("$0.00");
    expect(formatCostUsd(12.5)).toBe("$12.50");
    expect(formatCostUsd(0.004197)).toBe("$0.004197");
    expect(formatCostUsd(0.00000049)).toBe("$0.00");
    expect(formatCostUsd(1234.5)).toBe("$1,234.50");
  });
});
