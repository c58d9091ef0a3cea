// What a model's tokens cost: usage, a price per million tokens, the shipped price table and
// the one rule that finds a model's entry in a table. Pure: the SDK's aiModel, the worker's
// dashboard prices and the policies screen all price by these.

export type ModelUsage = {
  /** All input tokens, cached ones included. */
  inputTokens: number;
  /** All output tokens, reasoning ones included. */
  outputTokens: number;
  /** Input tokens read from the provider's prompt cache, where the usage reports them. */
  cachedInputTokens?: number;
  /** Output tokens spent on reasoning, where the usage reports them. */
  reasoningTokens?: number;
};

/**
 * Where a call's price came from: an admin's on the dashboard (model_prices), the worker's
 * configuration (MODEL_PRICES, a library user's `prices`), or the shipped DEFAULT_PRICES.
 */
export type PriceSource = "dashboard" | "config" | "default";

export type PriceUsed = ModelPricing & { source: PriceSource };

/** Price per million tokens, for turning usage into cost. */
export type ModelPricing = {
  inputPerMTok: number;
  outputPerMTok: number;
  /** Cached input tokens (a prompt-cache read); absent: they cost what other input costs. */
  cachedInputPerMTok?: number;
};

export function costOf(usage: ModelUsage, pricing: ModelPricing): number {
  const cached = Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens);
  const cachedPrice = pricing.cachedInputPerMTok ?? pricing.inputPerMTok;
  return (
    ((usage.inputTokens - cached) * pricing.inputPerMTok +
      cached * cachedPrice +
      usage.outputTokens * pricing.outputPerMTok) /
    1e6
  );
}

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
 * `modelId`'s entry in `table`, by the exact id, or by the id after a gateway's `provider/`
 * prefix ("openai/gpt-4o-mini"). Never by a similar-looking id: "gpt-4o-2024-08-06" is unpriced
 * until the team names it. The runtime finds a dashboard price by the same rule.
 */
export function lookupPrice<T>(modelId: string, table: Readonly<Record<string, T>>): T | undefined {
  const bare = modelId.includes("/") ? modelId.slice(modelId.lastIndexOf("/") + 1) : undefined;
  // Own properties only: a model called "constructor" is not priced by Object.prototype.
  const own = (id: string) => (Object.hasOwn(table, id) ? table[id] : undefined);
  return own(modelId) ?? (bare === undefined ? undefined : own(bare));
}
