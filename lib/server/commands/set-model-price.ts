// Set or clear an admin's price for one model (admins). Every worker prices calls recorded after
// the change with it, over its configured price and the shipped default (the runtime reads it in
// the transaction that writes the call's cost). The system stream records before → after beside
// the shipped default and who, as `policy.changed` with scope `model:<id>`.
import type pg from "pg";
import { withTransaction } from "../../../db/client";
import type { Principal } from "../../domain/access";
import { type CommandResult, invalid, refuseWithout } from "../../domain/command-result";
import {
  MODEL_SCOPE_PREFIX,
  type ModelPriceChange,
  type ModelPriceInput,
  modelPriceInputSchema,
} from "../../domain/model-price-form";
import { DEFAULT_PRICES, lookupPrice } from "../../domain/model-pricing";
import { describeIssues } from "../../domain/zod-issues";
import { appendLedger, SYSTEM_STREAM } from "../ledger/append-ledger";
import { saveVersionedSetting } from "./versioned-setting";

type Row = {
  input_per_mtok: number;
  output_per_mtok: number;
  cached_input_per_mtok: number | null;
  version: number;
};

export async function setModelPrice(
  pool: pg.Pool,
  principal: Principal,
  input: ModelPriceInput,
): Promise<CommandResult<{ model: string; version: number | null }>> {
  const refused = refuseWithout(principal, "policies:write", "change model prices");
  if (refused) return refused;
  // The adapters parse the form already; a caller of the command gets the same bounds.
  const parsed = modelPriceInputSchema.safeParse(input);
  if (!parsed.success) return invalid(describeIssues(parsed.error));
  const { model, version, price } = parsed.data;
  return withTransaction(pool, async (client) => {
    const result = await saveVersionedSetting<Row>(
      client,
      {
        table: "model_prices",
        keyColumn: "model",
        columns: ["input_per_mtok", "output_per_mtok", "cached_input_per_mtok"],
        what: `the price of ${model}`,
        nothingToClear: `${model} has no admin price to clear`,
      },
      {
        key: model,
        version,
        values: price && [
          price.inputPerMTok,
          price.outputPerMTok,
          price.cachedInputPerMTok ?? null,
        ],
        actor: principal.actor,
      },
    );
    if (!result.ok) return result;
    const { current, saved } = result.value;
    const data: ModelPriceChange = {
      scope: `${MODEL_SCOPE_PREFIX}${model}`,
      before: current
        ? {
            inputPerMTok: current.input_per_mtok,
            outputPerMTok: current.output_per_mtok,
            ...(current.cached_input_per_mtok === null
              ? {}
              : { cachedInputPerMTok: current.cached_input_per_mtok }),
          }
        : null,
      after: price,
      default: lookupPrice(model, DEFAULT_PRICES) ?? null,
    };
    await appendLedger(client, SYSTEM_STREAM, {
      kind: "policy.changed",
      actor: principal.actor,
      data,
    });
    return { ok: true as const, value: { model, version: saved } };
  });
}
