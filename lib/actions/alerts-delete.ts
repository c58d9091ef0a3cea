"use server";
// Deleting an alert rule (admins): session → alerts:write → zod → delete-alert-rule at the
// version the admin loaded. The system stream keeps what the rule was.
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { defineAction, fromCommand } from "../auth/guard";
import { principalOf } from "../domain/access";
import { deleteAlertRule } from "../server/commands/delete-alert-rule";
import { getPool } from "../server/db";

export const deleteAlertRuleAction = defineAction({
  name: "deleteAlertRuleAction",
  scope: "alerts:write",
  input: z.object({
    id: z.string({ message: "choose a rule" }).uuid("choose a rule"),
    version: z.coerce.number({ message: "must be a number" }).int().min(1),
  }),
  run: async ({ id, version }, viewer) => {
    const result = await deleteAlertRule(getPool(), principalOf(viewer), { id, version });
    if (result.ok) revalidatePath("/settings/alerts");
    return fromCommand(result);
  },
});
