// What a model's tokens cost: a price table per model id, shipped with list prices of a few
// common models and overridden or extended by the team. A model the table does not name costs
// 0 and its call is recorded `priced: false`: the spend screen shows it unpriced, not guessed.
import {
  costOf,
  DEFAULT_PRICES,
  lookupPrice,
  type ModelPrices,
  type ModelPricing,
  type ModelUsage,
  type PriceUsed,
} from "../../domain/model-pricing";

export { DEFAULT_PRICES, lookupPrice, type ModelPrices };

/** The price of `modelId`: the team's table over the defaults (see lookupPrice). */
export function priceOf(modelId: string, prices: ModelPrices = {}): ModelPricing | undefined {
  const price = pricedBy(modelId, prices);
  if (!price) return undefined;
  const { source: _, ...pricing } = price;
  return pricing;
}

/** The price of `modelId` and whether the team's table or the shipped defaults set it. */
export function pricedBy(modelId: string, prices: ModelPrices = {}): PriceUsed | undefined {
  const team = lookupPrice(modelId, prices);
  if (team) return { ...team, source: "config" };
  const shipped = lookupPrice(modelId, DEFAULT_PRICES);
  return shipped ? { ...shipped, source: "default" } : undefined;
}

/** The cost of a call, whether the table priced it (unpriced: 0), and the price it used. */
export function priceUsage(
  modelId: string,
  usage: ModelUsage,
  prices?: ModelPrices,
): { cost: number; priced: boolean; price?: PriceUsed } {
  const price = pricedBy(modelId, prices);
  return price ? { cost: costOf(usage, price), priced: true, price } : { cost: 0, priced: false };
}
