// An admin's price for a model, against a real database and a real worker: set, changed and
// cleared from the policies screen's command with the version guard, recorded in the ledger as
// before → after beside the shipped default, listed on the policies screen, and charged by the
// worker for later calls (model.called's cost and price, tasks.cost, spend_daily) in place of
// the configured or shipped price, which applies again once it is cleared.
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../db/testing/database";
import { testViewer } from "../../lib/auth/testing";
import { principalOf } from "../../lib/domain/access";
import type { JsonValue } from "../../lib/domain/json";
import { modelCallCost, summarizeEntry } from "../../lib/domain/ledger-summary";
import { modelPriceFormSchema } from "../../lib/domain/model-price-form";
import { aiModel } from "../../lib/sdk/ai/model";
import { DEFAULT_PRICES } from "../../lib/sdk/ai/prices";
import { scriptedLanguageModel } from "../../lib/sdk/ai/scripted-model";
import { defineAgent } from "../../lib/sdk/define";
import { costOf, type ModelUsage } from "../../lib/sdk/model";
import { setModelPrice } from "../../lib/server/commands/set-model-price";
import { listModelPrices } from "../../lib/server/queries/list-model-prices";
import { listRetryPolicies } from "../../lib/server/queries/list-retry-policies";
import { runtimeTestKit } from "./test-support";
import { workerForFile } from "./test-worker";

const t = await setUpTestDatabase("model_price_admin");
const kit = runtimeTestKit(t.pool);
const admin = principalOf(testViewer("admin", "ada@example.com"));
const ops = testViewer("ops");

// Through a gateway id, so an admin's price for the bare id must be found as the table's is.
const MODEL = "openai/gpt-4o-mini";
const BARE = "gpt-4o-mini";
const model = aiModel(
  scriptedLanguageModel(() => ({
    text: "Noted.",
    usage: { cachedInputTokens: 400, reasoningTokens: 50 },
  })),
  { modelId: MODEL },
);

const agent = defineAgent({
  name: "priced",
  input: z.object({ n: z.number() }),
  tools: {},
  run: async (ctx, input) => {
    const answer = await ctx.model({ prompt: `Call ${input.n}` });
    return { text: answer.text };
  },
});

workerForFile(t.pool, { agents: [agent], model, concurrency: 1 });

const form = (
  id: string,
  version: number | null,
  inputPerMTok: string,
  outputPerMTok: string,
  cachedInputPerMTok = "",
) =>
  modelPriceFormSchema.parse({
    model: id,
    version: version ?? "",
    inputPerMTok,
    outputPerMTok,
    cachedInputPerMTok,
  });

const changes = async () =>
  (
    await t.pool.query<{ actor: string; data: Record<string, unknown> }>(
      `select actor, data from ledger_entries where kind = 'policy.changed' order by id`,
    )
  ).rows;

type Called = {
  model: string;
  provider?: string;
  usage: ModelUsage;
  cost: number;
  priced?: boolean;
  price?: {
    inputPerMTok: number;
    outputPerMTok: number;
    cachedInputPerMTok?: number;
    source: string;
  };
};

/** Runs one task to the end: its model.called data and tasks.cost. */
async function call(
  n: number,
): Promise<{ called: Called; taskCost: number; summary: string; step: string }> {
  const id = await kit.enqueue("priced", { n });
  expect((await kit.settle(id)).status).toBe("succeeded");
  const entry = (await kit.entries(id)).find((e) => e.kind === "model.called");
  const { rows } = await t.pool.query<{ cost: number }>("select cost from tasks where id = $1", [
    id,
  ]);
  // The task page's step journal shows the journaled response, priced as the ledger says.
  const steps = await t.pool.query<{ result: JsonValue }>(
    "select result from steps where task_id = $1 and kind = 'model'",
    [id],
  );
  return {
    step: modelCallCost(steps.rows[0]?.result ?? null),
    called: entry?.data as unknown as Called,
    taskCost: rows[0]?.cost ?? Number.NaN,
    summary: summarizeEntry({ kind: "model.called", actor: "worker:w", data: entry?.data ?? null }),
  };
}

const spentToday = async () =>
  (
    await t.pool.query<{ cost: number; calls: number; cached: number; reasoning: number }>(
      `select coalesce(sum(cost), 0)::float8 as cost, coalesce(sum(calls), 0)::int as calls,
         coalesce(sum(cached_input_tokens), 0)::int as cached,
         coalesce(sum(reasoning_tokens), 0)::int as reasoning
       from spend_daily where agent = 'priced' and model = $1`,
      [MODEL],
    )
  ).rows[0];

afterEach(async () => {
  await t.pool.query("delete from model_prices");
});

describe("an admin's model price", () => {
  it("is charged for later calls on the worker, and clearing it brings the default back", async () => {
    const shipped = DEFAULT_PRICES[BARE];
    if (!shipped) throw new Error("gpt-4o-mini ships priced");
    const start = await spentToday();

    const before = await call(1);
    expect(before.called).toMatchObject({
      model: MODEL,
      provider: "scripted",
      usage: { cachedInputTokens: 400, reasoningTokens: 50 },
      priced: true,
      price: { ...shipped, source: "default" },
    });
    expect(before.called.cost).toBeCloseTo(costOf(before.called.usage, shipped), 12);
    expect(before.taskCost).toBeCloseTo(before.called.cost, 12);

    // Ten times the list price, on the bare id: the gateway's call is charged it.
    const dashboard = { inputPerMTok: 1.5, outputPerMTok: 6, cachedInputPerMTok: 0.75 };
    expect(await setModelPrice(t.pool, admin, form(BARE, null, "1.5", "6", "0.75"))).toEqual({
      ok: true,
      value: { model: BARE, version: 1 },
    });
    const during = await call(2);
    expect(during.called.price).toEqual({ ...dashboard, source: "dashboard" });
    expect(during.called.cost).toBeCloseTo(costOf(during.called.usage, dashboard), 12);
    expect(during.called.cost).toBeGreaterThan(before.called.cost * 5);
    expect(during.taskCost).toBeCloseTo(during.called.cost, 12);
    expect(during.summary).toContain("provider: scripted");
    expect(during.summary).toMatch(/tokens: in \d+ \(400 cached\), out \d+ \(50 reasoning\)/);
    expect(during.summary).toContain("price: $1.5 in · $0.75 cached · $6 out per Mtok (dashboard)");

    expect(await setModelPrice(t.pool, admin, form(BARE, 1, "", ""))).toEqual({
      ok: true,
      value: { model: BARE, version: null },
    });
    const after = await call(3);
    expect(after.called.price).toEqual({ ...shipped, source: "default" });
    expect(after.called.cost).toBeCloseTo(costOf(after.called.usage, shipped), 12);

    // The day's counters add exactly what the ledger says each call cost.
    const end = await spentToday();
    expect(end?.calls).toBe((start?.calls ?? 0) + 3);
    expect(end?.cached).toBe((start?.cached ?? 0) + 3 * 400);
    expect(end?.reasoning).toBe((start?.reasoning ?? 0) + 3 * 50);
    expect((end?.cost ?? 0) - (start?.cost ?? 0)).toBeCloseTo(
      before.called.cost + during.called.cost + after.called.cost,
      12,
    );
  });

  it("is set, changed on the version loaded and cleared, each change in the ledger", async () => {
    const before = (await changes()).length;
    expect(await setModelPrice(t.pool, admin, form("gpt-4o", null, "2", "8"))).toEqual({
      ok: true,
      value: { model: "gpt-4o", version: 1 },
    });
    // A second admin who loaded the page before the first saved is refused, not obeyed.
    expect(await setModelPrice(t.pool, admin, form("gpt-4o", null, "3", "9"))).toMatchObject({
      ok: false,
      code: "conflict",
    });
    expect(await setModelPrice(t.pool, admin, form("gpt-4o", 1, "2", "8", "1"))).toMatchObject({
      ok: true,
      value: { version: 2 },
    });
    const listed = (await listModelPrices(t.db, ops)).find((m) => m.model === "gpt-4o");
    expect(listed).toMatchObject({
      default: DEFAULT_PRICES["gpt-4o"],
      admin: { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 1, version: 2 },
      inForce: { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 1, source: "dashboard" },
    });
    // A stale clear is refused too.
    expect(await setModelPrice(t.pool, admin, form("gpt-4o", 1, "", ""))).toMatchObject({
      ok: false,
      code: "conflict",
    });
    expect(await setModelPrice(t.pool, admin, form("gpt-4o", 2, "", ""))).toEqual({
      ok: true,
      value: { model: "gpt-4o", version: null },
    });

    const recorded = (await changes()).slice(before);
    expect(recorded.map((e) => e.actor)).toEqual([admin.actor, admin.actor, admin.actor]);
    const shipped =
      "$2.5 in · $1.25 cached · $10 out per Mtok (shipped default, unless configured)";
    expect(recorded.map((e) => summarizeEntry({ kind: "policy.changed", ...e } as never))).toEqual([
      `by: ada@example.com · scope: model:gpt-4o · Price ${shipped} → $2 in · $8 out per Mtok`,
      "by: ada@example.com · scope: model:gpt-4o · Price $2 in · $8 out per Mtok → $2 in · $1 cached · $8 out per Mtok",
      `by: ada@example.com · scope: model:gpt-4o · Price $2 in · $1 cached · $8 out per Mtok → ${shipped}`,
    ]);
    expect(recorded[0]?.data).toEqual({
      scope: "model:gpt-4o",
      before: null,
      after: { inputPerMTok: 2, outputPerMTok: 8 },
      default: DEFAULT_PRICES["gpt-4o"],
    });
    const history = (await listRetryPolicies(t.db, ops)).changes.filter(
      (c) => c.scope === "model:gpt-4o",
    );
    expect(history[0]?.setting).toEqual({
      field: "price",
      label: "Price",
      before: "$2 in · $1 cached · $8 out per Mtok",
      after: shipped,
    });
    expect((await listModelPrices(t.db, ops)).find((m) => m.model === "gpt-4o")).toMatchObject({
      admin: null,
      inForce: { ...DEFAULT_PRICES["gpt-4o"], source: "default" },
    });
  });

  it("prices a model the table does not ship, and lists models seen in spend", async () => {
    expect(await setModelPrice(t.pool, admin, form("llama3.1:8b", null, "0", "0"))).toMatchObject({
      ok: true,
    });
    const [entry] = (await changes()).slice(-1);
    expect(summarizeEntry({ kind: "policy.changed", ...entry } as never)).toBe(
      "by: ada@example.com · scope: model:llama3.1:8b · Price configured price, else unpriced → $0 in · $0 out per Mtok",
    );
    const models = await listModelPrices(t.db, ops);
    expect(models.map((m) => m.model)).toEqual(
      expect.arrayContaining([...Object.keys(DEFAULT_PRICES), "llama3.1:8b", MODEL]),
    );
    expect(models.find((m) => m.model === MODEL)).toMatchObject({ seen: true });
  });

  it("refuses who may not, half a price, bounds it does not meet and clearing nothing", async () => {
    const reviewer = principalOf(testViewer("reviewer"));
    expect(await setModelPrice(t.pool, reviewer, form("gpt-4o", null, "1", "2"))).toMatchObject({
      ok: false,
      code: "forbidden",
    });
    expect(
      modelPriceFormSchema.safeParse({ model: "gpt-4o", inputPerMTok: "1" }).error?.issues,
    ).toEqual([
      expect.objectContaining({ path: ["outputPerMTok"], message: "is required with a price" }),
    ]);
    expect(
      modelPriceFormSchema
        .safeParse({ model: "gpt-4o", inputPerMTok: "-1", outputPerMTok: "x" })
        .error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`),
    ).toEqual([
      "inputPerMTok: must be at least 0",
      "outputPerMTok: must be a number, such as 2 or 0.5",
    ]);
    expect(
      await setModelPrice(t.pool, admin, {
        model: "gpt-4o",
        version: null,
        price: { inputPerMTok: 1e6, outputPerMTok: 1 },
      }),
    ).toMatchObject({ ok: false, code: "invalid" });
    expect(await setModelPrice(t.pool, admin, form("gpt-4o", null, "", ""))).toMatchObject({
      ok: false,
      code: "invalid",
      message: "gpt-4o has no admin price to clear",
    });
    expect((await t.pool.query("select count(*)::int as n from model_prices")).rows[0]?.n).toBe(0);
  });
});
