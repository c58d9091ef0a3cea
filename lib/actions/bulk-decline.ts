"use server";
// A second reviewer declines a money bulk action that waits for them, with a reason; the
// command decides who may (declineRefusal: whoever may confirm it).
import { z } from "zod";
import { defineAction, fromCommand } from "../auth/guard";
import { principalOf } from "../domain/access";
import { declineBulkAction } from "../server/commands/bulk-decline";
import { getPool } from "../server/db";
import { bulkId, bulkReason } from "./bulk-input";

export const declineBulkActionAction = defineAction({
  name: "declineBulkActionAction",
  scope: "deadLetters:review",
  input: z.object({ bulkId, reason: bulkReason }),
  run: async (input, viewer) =>
    fromCommand(await declineBulkAction(getPool(), principalOf(viewer), input)),
});
