"use server";
// Changing a retry policy (admins): session → policies:write → zod (the form in seconds, see
// lib/domain/policy-form) → set-policy, on the version the admin loaded. The command records
// before, after and who in the system stream.
import { defineAction, fromCommand } from "../auth/guard";
import { principalOf } from "../domain/access";
import { policyFormSchema } from "../domain/policy-form";
import { toolLimitFormSchema } from "../domain/tool-limit-form";
import { setPolicy } from "../server/commands/set-policy";
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
