"use server";
// Adding a schedule (admins): session → schedules:write → zod (each field named) →
// create-schedule, which checks the input against the agent's published schema.
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { defineAction, fromCommand } from "../auth/guard";
import { principalOf } from "../domain/access";
import {
  cronSchema,
  missedPolicySchema,
  scheduleNameSchema,
  timezoneSchema,
} from "../domain/schedules";
import { createSchedule } from "../server/commands/create-schedule";
import { getPool } from "../server/db";

const jsonText = z.string().transform((text, ctx) => {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    ctx.addIssue({ code: "custom", message: `is not JSON: ${(err as Error).message}` });
    return z.NEVER;
  }
});

export const createScheduleAction = defineAction({
  name: "createScheduleAction",
  scope: "schedules:write",
  input: z.object({
    agent: z.string().min(1, "choose an agent"),
    name: scheduleNameSchema,
    cron: cronSchema,
    timezone: timezoneSchema,
    missed: missedPolicySchema,
    input: jsonText,
  }),
  run: async (input, viewer) => {
    const result = await createSchedule(getPool(), principalOf(viewer), input);
    if (!result.ok) return fromCommand<{ id: string }>(result);
    revalidatePath("/schedules");
    // Only what the form says back, not the whole row.
    return fromCommand<{ id: string }>({ ok: true, value: { id: result.value.id } });
  },
});
