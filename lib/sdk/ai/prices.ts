// What a model's tokens cost: a price table per model id, shipped with list prices of a few
// common models and overridden or extended by the team. A model the table does not name costs
// 0 and its call is recorded `priced: false`: the spend screen shows it unpriced, not guessed.
import { costOf, type ModelPricing, type ModelUsage } from "../model";

export type ModelPrices = Readonly<Record<string, ModelPricing>>;

/**
 * US dollars per million tokens, the providers' published list prices for standard (not batch)
 * use, checked 2026-11. Prices change: set `prices` for the models you use.
 */
export const DEFAULT_PRICES: ModelPrices = {
  "gpt-4o": { inputPerMTok: 2.5, outputPerMTok: 10, cachedInputPerMTok: 1.25 },
  "gpt-4o-mini": { inputPerMTok: 0.15, outputPerMTok: 0.6, cachedInputPerMTok: 0.075 },
  "gpt-4.1": { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 },
  "gpt-4.1-mini": { inputPerMTok: 0.4, outputPerMTok: 1.6, cachedInputPerMTok: 0.1 },
  "gpt-5": { inputPerMTok: 1.25, outputPerMTok: 10, cachedInputPerMTok: 0.125 },
  "gpt-5-mini": { inputPerMTok: 0.25, outputPerMTok: 2, cachedInputPerMTok: 0.025 },
  "claude-sonnet-4-5": { inputPerMTok: 3, outputPerMTok: 15, cachedInputPerMTok: 0.3 },
  "claude-haiku-4-5": { inputPerMTok: 1, outputPerMTok: 5, cachedInputPerMTok: 0.1 },
  "gemini-2.5-flash": { inputPerMTok: 0.3, outputPerMTok: 2.5, cachedInputPerMTok: 0.075 },
  "gemini-2.5-pro": { inputPerMTok: 1.25, outputPerMTok: 10, cachedInputPerMTok: 0.31 },
};

/**
 * The price of `modelId`: the team's table over the defaults, by the exact id, or by the id
 * after a gateway's `provider/` prefix ("openai/gpt-4o-mini"). Never by a similar-looking id:
 * "gpt-4o-2024-08-06" is unpriced until the team names it.
 */
export function priceOf(modelId: string, prices: ModelPrices = {}): ModelPricing | undefined {
  const table: ModelPrices = { ...DEFAULT_PRICES, ...prices };
  const bare = modelId.includes("/") ? modelId.slice(modelId.lastIndexOf("/") + 1) : undefined;
  return table[modelId] ?? (bare === undefined ? undefined : table[bare]);
}

/** The cost of a call, and whether the table priced it (unpriced: 0). */
export function priceUsage(
  modelId: string,
  usage: ModelUsage,
  prices?: ModelPrices,
): { cost: number; priced: boolean } {
  const price = priceOf(modelId, prices);
  return price ? { cost: costOf(usage, price), priced: true } : { cost: 0, priced: false };
}
