"use server";
// Adding an alert rule (admins): session → alerts:write → zod → create-alert-rule. A webhook
// rule's secret comes back here once; the command records the rule in the system stream.
import { revalidatePath } from "next/cache";
import { defineAction, fromCommand } from "../auth/guard";
import { principalOf } from "../domain/access";
import { createAlertRule } from "../server/commands/create-alert-rule";
import { getPool } from "../server/db";
import { alertRuleFormSchema } from "./alert-rule-form";

export const createAlertRuleAction = defineAction({
  name: "createAlertRuleAction",
  scope: "alerts:write",
  input: alertRuleFormSchema,
  run: async (rule, viewer) => {
    const result = await createAlertRule(getPool(), principalOf(viewer), rule);
    if (result.ok) revalidatePath("/settings/alerts");
    return fromCommand(result);
  },
});
