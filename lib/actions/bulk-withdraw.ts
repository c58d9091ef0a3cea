"use server";
// The reviewer who froze a money bulk action (or an admin) takes it back while it waits for a
// second reviewer; the command decides who may (withdrawRefusal).
import { z } from "zod";
import { defineAction, fromCommand } from "../auth/guard";
import { principalOf } from "../domain/access";
import { withdrawBulkAction } from "../server/commands/bulk-withdraw";
import { getPool } from "../server/db";
import { bulkId, bulkReason } from "./bulk-input";

export const withdrawBulkActionAction = defineAction({
  name: "withdrawBulkActionAction",
  scope: "deadLetters:review",
  input: z.object({ bulkId, reason: bulkReason }),
  run: async (input, viewer) =>
    fromCommand(await withdrawBulkAction(getPool(), principalOf(viewer), input)),
});
