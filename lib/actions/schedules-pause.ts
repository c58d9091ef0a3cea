"use server";
// Pausing or resuming a schedule (admins, code schedules too): session → schedules:write → zod →
// set-schedule-paused. Resuming under `skip` does not backfill the paused stretch.
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { defineAction, fromCommand } from "../auth/guard";
import { principalOf } from "../domain/access";
import { setSchedulePaused } from "../server/commands/set-schedule-paused";
import { getPool } from "../server/db";

export const setSchedulePausedAction = defineAction({
  name: "setSchedulePausedAction",
  scope: "schedules:write",
  input: z.object({
    agent: z.string().min(1, "choose an agent"),
    name: z.string().min(1, "choose a schedule"),
    paused: z.boolean({ message: "say pause or resume" }),
  }),
  run: async (input, viewer) => {
    const result = await setSchedulePaused(getPool(), principalOf(viewer), input);
    if (!result.ok) return fromCommand<{ paused: boolean }>(result);
    revalidatePath("/schedules");
    // Only what the form says back, not the whole row.
    return fromCommand<{ paused: boolean }>({ ok: true, value: { paused: result.value.paused } });
  },
});
