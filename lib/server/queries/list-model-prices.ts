// The model prices on the policies screen: every model the shipped table prices and every model
// a call was recorded for (spend_daily), with the shipped default, an admin's price where one is
// set (with its version, for the edit form) and which is in force. A worker's configured price
// (MODEL_PRICES) is in its own environment, not here: it sits between the two.
import { asc, sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { modelPrices, spendDaily } from "../../../db/schema";
import { requireScope, type Viewer } from "../../domain/access";
import { DEFAULT_PRICES, lookupPrice, type ModelPricing } from "../../domain/model-pricing";

export type ModelPriceDto = {
  model: string;
  /** The shipped table's price (by the exact id or the id after a gateway prefix); null: none. */
  default: ModelPricing | null;
  /** An admin's price; null when none is set. */
  admin: (ModelPricing & { version: number; updatedBy: string; updatedAt: string }) | null;
  /** True when calls to the model were recorded (spend_daily). */
  seen: boolean;
  /** The price calls are charged: the admin's, else the worker's configured one, else the default. */
  inForce: (ModelPricing & { source: "dashboard" | "default" }) | null;
};

export async function listModelPrices(db: Db, viewer: Viewer | null): Promise<ModelPriceDto[]> {
  requireScope(viewer, "tasks:read");
  const [admins, seen] = await Promise.all([
    db.select().from(modelPrices).orderBy(asc(modelPrices.model)),
    db
      .select({ model: spendDaily.model })
      .from(spendDaily)
      .groupBy(spendDaily.model)
      .orderBy(sql`1`),
  ]);
  const adminOf = new Map(admins.map((a) => [a.model, a]));
  const adminTable = Object.fromEntries(adminOf);
  const seenModels = new Set(seen.map((s) => s.model));
  const names = [
    ...new Set([...Object.keys(DEFAULT_PRICES), ...seenModels, ...adminOf.keys()]),
  ].sort((a, b) => a.localeCompare(b));
  return names.map((model): ModelPriceDto => {
    const shipped = lookupPrice(model, DEFAULT_PRICES) ?? null;
    const row = adminOf.get(model);
    const admin = row
      ? {
          inputPerMTok: row.inputPerMTok,
          outputPerMTok: row.outputPerMTok,
          ...(row.cachedInputPerMTok === null
            ? {}
            : { cachedInputPerMTok: row.cachedInputPerMTok }),
          version: row.version,
          updatedBy: row.updatedBy,
          updatedAt: row.updatedAt.toISOString(),
        }
      : null;
    // The runtime's rule: an admin's price for the bare id also prices "gateway/<id>".
    const dashboard = lookupPrice(model, adminTable);
    const inForce = dashboard
      ? {
          inputPerMTok: dashboard.inputPerMTok,
          outputPerMTok: dashboard.outputPerMTok,
          ...(dashboard.cachedInputPerMTok === null
            ? {}
            : { cachedInputPerMTok: dashboard.cachedInputPerMTok }),
          source: "dashboard" as const,
        }
      : shipped
        ? { ...shipped, source: "default" as const }
        : null;
    return { model, default: shipped, admin, seen: seenModels.has(model), inForce };
  });
}
