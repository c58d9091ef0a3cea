"use server";
// Retry all of a destination's undelivered alerts (admins): session → alerts:write → zod →
// retry-alert-deliveries, which replays each dead delivery of the rule under its own lock.
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { defineAction, fromCommand } from "../auth/guard";
import { principalOf } from "../domain/access";
import { retryAlertDeliveries } from "../server/commands/retry-alert-deliveries";
import { getPool } from "../server/db";

export const retryAlertDeliveriesAction = defineAction({
  name: "retryAlertDeliveriesAction",
  scope: "alerts:write",
  input: z.object({ ruleId: z.string({ message: "choose a rule" }).uuid("choose a rule") }),
  run: async ({ ruleId }, viewer) => {
    const result = await retryAlertDeliveries(getPool(), principalOf(viewer), { ruleId });
    if (result.ok) {
      for (const path of ["/inbox", "/dead-letters", "/settings/alerts"]) revalidatePath(path);
    }
    return fromCommand(result);
  },
});
