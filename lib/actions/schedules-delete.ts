"use server";
// Deleting an admin's schedule: session → schedules:write → zod → delete-schedule (a schedule
// the code declares is refused: it would come back with the next worker).
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { defineAction, fromCommand } from "../auth/guard";
import { principalOf } from "../domain/access";
import { deleteSchedule } from "../server/commands/delete-schedule";
import { getPool } from "../server/db";

export const deleteScheduleAction = defineAction({
  name: "deleteScheduleAction",
  scope: "schedules:write",
  input: z.object({
    agent: z.string().min(1, "choose an agent"),
    name: z.string().min(1, "choose a schedule"),
  }),
  run: async (input, viewer) => {
    const result = await deleteSchedule(getPool(), principalOf(viewer), input);
    if (result.ok) revalidatePath("/schedules");
    return fromCommand(result);
  },
});
