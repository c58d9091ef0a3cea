"use server";
// Changing a retry policy (admins): session → policies:write → zod (the form in seconds, see
// lib/domain/policy-form) → set-policy, on the version the admin loaded. The command records
// before, after and who in the system stream.
import { defineAction, fromCommand } from "../auth/guard";
import { principalOf } from "../domain/access";
import { policyFormSchema } from "../domain/policy-form";
import { setPolicy } from "../server/commands/set-policy";
import { getPool } from "../server/db";

export const setPolicyAction = defineAction({
  name: "setPolicyAction",
  scope: "policies:write",
  input: policyFormSchema,
  run: async (input, viewer) => fromCommand(await setPolicy(getPool(), principalOf(viewer), input)),
});
