"use server";
// Changing a retry policy (admins): session → policies:write → zod (the form in seconds, see
// lib/domain/policy-form) → set-policy, on the version the admin loaded. The command records
// before, after and who in the system stream.
import { defineAction, fromCommand } from "../auth/guard";
import { principalOf } from "../domain/access";
import { modelPriceFormSchema } from "../domain/model-price-form";
import { policyFormSchema } from "../domain/policy-form";
import { spendCapFormSchema } from "../domain/spend-cap-form";
import { toolLimitFormSchema } from "../domain/tool-limit-form";
import { setModelPrice } from "../server/commands/set-model-price";
import { setPolicy } from "../server/commands/set-policy";
import { setSpendCap } from "../server/commands/set-spend-cap";
import { setToolRateLimit } from "../server/commands/set-tool-rate-limit";
import { getPool } from "../server/db";

export const setPolicyAction = defineAction({
  name: "setPolicyAction",
  scope: "policies:write",
  input: policyFormSchema,
  run: async (input, viewer) => fromCommand(await setPolicy(getPool(), principalOf(viewer), input)),
});

/** Setting or clearing an admin's rate limit for one tool, on the version the admin loaded. */
export const setToolRateLimitAction = defineAction({
  name: "setToolRateLimitAction",
  scope: "policies:write",
  input: toolLimitFormSchema,
  run: async (input, viewer) =>
    fromCommand(await setToolRateLimit(getPool(), principalOf(viewer), input)),
});

/** Setting, changing or clearing an agent's daily spend budget, on the version the admin loaded. */
export const setSpendCapAction = defineAction({
  name: "setSpendCapAction",
  scope: "policies:write",
  input: spendCapFormSchema,
  run: async (input, viewer) =>
    fromCommand(await setSpendCap(getPool(), principalOf(viewer), input)),
});

/** Setting or clearing an admin's price for one model, on the version the admin loaded. */
export const setModelPriceAction = defineAction({
  name: "setModelPriceAction",
  scope: "policies:write",
  input: modelPriceFormSchema,
  run: async (input, viewer) =>
    fromCommand(await setModelPrice(getPool(), principalOf(viewer), input)),
});
