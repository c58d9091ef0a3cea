// An admin's price for a model (model_prices, set on the policies screen) over the one the model
// client priced the call with (the worker's configuration or the shipped table): the runtime
// recomputes the call's cost with it before the cost is written, and records which price it used.
import type { PoolClient } from "pg";
import { lookupPrice } from "../../lib/domain/model-pricing";
import { costOf, type ModelPricing, type ModelResponse } from "../../lib/sdk/model";

type Row = {
  model: string;
  input_per_mtok: number;
  output_per_mtok: number;
  cached_input_per_mtok: number | null;
};

/**
 * `response` priced by the dashboard's price for its model, when an admin set one (found by the
 * exact id, else the id after a gateway's `provider/` prefix, as the price table is); else as
 * the model client priced it. Read in the caller's transaction, the one that writes the cost,
 * rather than cached: a changed price applies to the very next call on every worker, with no
 * TTL to reason about, for one primary-key read beside that transaction's own writes.
 */
export async function withDashboardPrice(
  client: PoolClient,
  response: ModelResponse,
): Promise<ModelResponse> {
  const id = response.model;
  const ids = id.includes("/") ? [id, id.slice(id.lastIndexOf("/") + 1)] : [id];
  const { rows } = await client.query<Row>({
    name: "runtime_model_price",
    text: `select model, input_per_mtok, output_per_mtok, cached_input_per_mtok
      from model_prices where model = any($1::text[])`,
    values: [ids],
  });
  const row = lookupPrice(id, Object.fromEntries(rows.map((r) => [r.model, r])));
  if (!row) return response;
  const price: ModelPricing = {
    inputPerMTok: row.input_per_mtok,
    outputPerMTok: row.output_per_mtok,
    ...(row.cached_input_per_mtok === null
      ? {}
      : { cachedInputPerMTok: row.cached_input_per_mtok }),
  };
  return {
    ...response,
    cost: costOf(response.usage, price),
    priced: true,
    price: { ...price, source: "dashboard" },
  };
}
