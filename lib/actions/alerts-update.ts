"use server";
// Changing an alert rule (admins), including enabling and disabling it: session →
// alerts:write → zod → update-alert-rule at the version the admin loaded.
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { defineAction, fromCommand } from "../auth/guard";
import { principalOf } from "../domain/access";
import { updateAlertRule } from "../server/commands/update-alert-rule";
import { getPool } from "../server/db";
import { alertRuleEditSchema } from "./alert-rule-form";

export const updateAlertRuleAction = defineAction({
  name: "updateAlertRuleAction",
  scope: "alerts:write",
  input: z.object({
    id: z.string({ message: "choose a rule" }).uuid("choose a rule"),
    version: z.coerce.number({ message: "must be a number" }).int().min(1),
    rule: alertRuleEditSchema,
  }),
  run: async ({ id, version, rule }, viewer) => {
    const result = await updateAlertRule(getPool(), principalOf(viewer), { id, version, rule });
    if (result.ok) revalidatePath("/settings/alerts");
    return fromCommand(result);
  },
});
