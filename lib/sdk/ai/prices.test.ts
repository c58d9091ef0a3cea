// The price table: defaults per model id, the team's overrides, cached input at its own price,
// and an unknown model recorded as unpriced (cost 0), never priced by a look-alike id.
import { describe, expect, it } from "vitest";
import { aiModel } from "./model";
import { DEFAULT_PRICES, pricedBy, priceOf, priceUsage } from "./prices";
import { scriptedLanguageModel } from "./scripted-model";

const signal = new AbortController().signal;

describe("priceOf", () => {
  it("finds a shipped model by its exact id, or after a gateway's provider prefix", () => {
    expect(priceOf("gpt-4o-mini")).toEqual(DEFAULT_PRICES["gpt-4o-mini"]);
    expect(priceOf("openai/gpt-4o-mini")).toEqual(DEFAULT_PRICES["gpt-4o-mini"]);
  });

  it("lets the team override a default and add its own models", () => {
    const prices = {
      "gpt-4o-mini": { inputPerMTok: 1, outputPerMTok: 2 },
      "llama3.1:8b": { inputPerMTok: 0, outputPerMTok: 0 },
    };
    expect(priceOf("gpt-4o-mini", prices)).toEqual({ inputPerMTok: 1, outputPerMTok: 2 });
    expect(priceOf("llama3.1:8b", prices)).toEqual({ inputPerMTok: 0, outputPerMTok: 0 });
    expect(priceOf("gpt-4o", prices)).toEqual(DEFAULT_PRICES["gpt-4o"]);
  });

  it("does not price a model it does not name, however alike", () => {
    expect(priceOf("gpt-4o-mini-2024-07-18")).toBeUndefined();
    expect(priceUsage("mystery", { inputTokens: 1_000, outputTokens: 1_000 })).toEqual({
      cost: 0,
      priced: false,
    });
  });
});

describe("priceUsage", () => {
  it("charges input, cached input at its own price, and output (reasoning included)", () => {
    const usage = { inputTokens: 1_000_000, cachedInputTokens: 400_000, outputTokens: 100_000 };
    const { cost, priced } = priceUsage("gpt-4o-mini", usage);
    expect(priced).toBe(true);
    // 600k input at 0.15, 400k cached at 0.075, 100k output at 0.60 (US dollars per million).
    expect(cost).toBeCloseTo(0.09 + 0.03 + 0.06, 10);
  });

  it("charges cached tokens as input when the model has no cached price", () => {
    const prices = { m: { inputPerMTok: 2, outputPerMTok: 4 } };
    const usage = { inputTokens: 1_000_000, cachedInputTokens: 500_000, outputTokens: 0 };
    expect(priceUsage("m", usage, prices).cost).toBeCloseTo(2, 10);
  });
});

describe("aiModel's cost", () => {
  const turn = [{ text: "Hello there, how can I help?" }];

  it("prices a call from the provider's usage and the table", async () => {
    const model = aiModel(scriptedLanguageModel(turn, { modelId: "house-model" }), {
      prices: { "house-model": { inputPerMTok: 1_000, outputPerMTok: 2_000 } },
    });
    const r = await model.generate({ prompt: "Hi" }, signal);
    expect(r).toMatchObject({ model: "house-model", priced: true, text: turn[0]?.text });
    expect(r.cost).toBeCloseTo(
      (r.usage.inputTokens * 1_000 + r.usage.outputTokens * 2_000) / 1e6,
      12,
    );
    expect(r.cost).toBeGreaterThan(0);
  });

  it("records an unknown model as unpriced, at cost 0", async () => {
    const model = aiModel(scriptedLanguageModel(turn, { modelId: "unlisted" }));
    const r = await model.generate({ prompt: "Hi" }, signal);
    expect(r).toMatchObject({ model: "unlisted", priced: false, cost: 0 });
    expect(r.usage.outputTokens).toBeGreaterThan(0);
  });
});

describe("pricedBy", () => {
  it("says whether the team's table or the shipped one priced the model, by the same rule", () => {
    const prices = { "gpt-4o": { inputPerMTok: 1, outputPerMTok: 2 } };
    expect(pricedBy("openai/gpt-4o", prices)).toEqual({ ...prices["gpt-4o"], source: "config" });
    expect(pricedBy("gpt-4o-mini", prices)).toEqual({
      ...DEFAULT_PRICES["gpt-4o-mini"],
      source: "default",
    });
    expect(pricedBy("constructor", prices)).toBeUndefined();
  });
});
