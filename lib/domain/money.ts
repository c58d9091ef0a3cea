// How much money a tool moves, for reviewers who confirm it: a money tool may declare which of
// its arguments are the amount (in the currency's minor units, as Stripe's `amount` is) and the
// currency (an ISO 4217 code); the catalog publishes that declaration and the previews read the
// amount of each effect that would act from its recorded arguments, summed per currency. Any
// agent's tool can say it, not only the example refund.
import type { JsonValue } from "./json";

/** Dotted paths in a money tool's arguments (`amount`, `price.minor`). */
export type MoneyArgs = { amount: string; currency: string };

/** A tool's `money` flag: true (moves money, amounts unknown) or where its amounts are. */
export type MoneyFlag = boolean | MoneyArgs | undefined;

export function movesMoney(flag: MoneyFlag): boolean {
  return flag === true || (typeof flag === "object" && flag !== null);
}

export function moneyArgsOf(flag: MoneyFlag): MoneyArgs | null {
  return typeof flag === "object" && flag !== null
    ? { amount: flag.amount, currency: flag.currency }
    : null;
}

/** An amount in minor units of a lower-case ISO 4217 currency. */
export type Money = { currency: string; minor: number };

function at(value: JsonValue, path: string): JsonValue | undefined {
  let here: JsonValue | undefined = value;
  for (const segment of path.split(".")) {
    if (here === null || typeof here !== "object" || here === undefined) return undefined;
    here = Array.isArray(here) ? here[Number(segment)] : here[segment];
  }
  return here;
}

/**
 * The amount the arguments name, or null when they do not say it plainly: a missing or redacted
 * field, an amount that is not a whole number of minor units, a code that is not three letters.
 */
export function moneyOf(args: JsonValue, declared: MoneyArgs): Money | null {
  const amount = at(args, declared.amount);
  const currency = at(args, declared.currency);
  if (typeof amount !== "number" || !Number.isSafeInteger(amount)) return null;
  if (typeof currency !== "string" || !/^[A-Za-z]{3}$/.test(currency)) return null;
  return { currency: currency.toLowerCase(), minor: amount };
}

/** Money that would move, per currency, and how many money effects did not say how much. */
export type MoneyTotals = {
  totals: { currency: string; minor: number; effects: number }[];
  /** Money effects whose amount is not known (no declaration, redacted, not reached yet). */
  unknown: number;
};

export const NO_MONEY: MoneyTotals = { totals: [], unknown: 0 };

/** Sums amounts per currency (largest first); null counts as an effect of unknown amount. */
export function sumMoney(amounts: Iterable<Money | null>): MoneyTotals {
  const parts: MoneyTotals[] = [];
  for (const m of amounts) {
    parts.push(m ? { totals: [{ ...m, effects: 1 }], unknown: 0 } : { totals: [], unknown: 1 });
  }
  return addTotals(parts);
}

/** Adds totals already summed (a bulk's members, each summed on its own), largest first. */
export function addTotals(parts: Iterable<MoneyTotals>): MoneyTotals {
  const by = new Map<string, { minor: number; effects: number }>();
  let unknown = 0;
  for (const p of parts) {
    unknown += p.unknown;
    for (const t of p.totals) {
      const sum = by.get(t.currency) ?? { minor: 0, effects: 0 };
      sum.minor += t.minor;
      sum.effects += t.effects;
      by.set(t.currency, sum);
    }
  }
  return {
    totals: [...by]
      .map(([currency, t]) => ({ currency, ...t }))
      .sort((a, b) => b.effects - a.effects || a.currency.localeCompare(b.currency)),
    unknown,
  };
}

/**
 * "USD 12,345.67": the code, then the amount with the currency's own number of decimals (JPY
 * none, KWD three), so a reviewer reads the same figure the provider will be sent.
 */
export function formatMoney(minor: number, currency: string): string {
  const code = currency.toUpperCase();
  let digits = 2;
  try {
    digits =
      new Intl.NumberFormat("en-US", { style: "currency", currency: code }).resolvedOptions()
        .maximumFractionDigits ?? 2;
  } catch {
    // Not a code Intl knows: two decimals, as most currencies have.
  }
  const value = minor / 10 ** digits;
  return `${code} ${value.toLocaleString("en-US", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  })}`;
}

const costFormat = new Intl.NumberFormat("en-US", {
  style: "currency",
  currency: "USD",
  minimumFractionDigits: 2,
  maximumFractionDigits: 6,
});

/**
 * A model cost (US dollars, the price table's unit) as every screen and message shows it:
 * "$1.50", "$0.004197": at least cents and up to six decimals, since one call often costs a
 * fraction of a cent.
 */
export function formatCostUsd(cost: number): string {
  return costFormat.format(cost);
}
