"use server";
// "Send event" on a waiting task's page: a person sends the event the task waits for by hand
// (the payload as JSON text, prefilled with the wait's match). It goes to every task waiting
// for it, as any sent event does, and the ledger records who sent it.
import { z } from "zod";
import { defineAction, fromCommand } from "../auth/guard";
import { principalOf } from "../domain/access";
import { eventNameSchema, eventPayloadSchema } from "../domain/events";
import { env } from "../env";
import { sendEvent } from "../server/commands/send-event";
import { getPool } from "../server/db";

const payloadText = z
  .string({ message: "must be JSON text" })
  .max(65_536, "must be at most 64 KiB")
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: "custom", message: "must be JSON" });
      return z.NEVER;
    }
  })
  .pipe(eventPayloadSchema);

export const sendEventAction = defineAction({
  name: "sendEventAction",
  scope: "events:send",
  input: z.object({ name: eventNameSchema, payload: payloadText }),
  run: async (input, viewer) =>
    fromCommand(
      await sendEvent(getPool(), principalOf(viewer), {
        name: input.name,
        payload: input.payload,
        keepMs: env().EVENT_KEEP_MS,
      }),
    ),
});
