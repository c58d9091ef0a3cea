"use server";
// The reviewer who froze a money bulk action (or an admin) takes it back while it waits for a
// second reviewer; the command decides who may (withdrawRefusal).
import { z } from "zod";
import { defineAction, fromCommand } from "../auth/guard";
import { principalOf } from "../domain/access";
import { withdrawBulkAction } from "../server/commands/bulk-withdraw";
import { getPool } from "../server/db";

export const withdrawBulkActionAction = defineAction({
  name: "withdrawBulkActionAction",
  scope: "deadLetters:review",
  input: z.object({
    bulkId: z.uuid({ message: "must be a UUID" }),
    reason: z.string().trim().max(1000, "must be at most 1000 characters").optional(),
  }),
  run: async (input, viewer) =>
    fromCommand(await withdrawBulkAction(getPool(), principalOf(viewer), input)),
});
