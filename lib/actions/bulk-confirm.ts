"use server";
// A second, different reviewer confirms a money bulk action as a whole.
import { z } from "zod";
import { defineAction, fromCommand } from "../auth/guard";
import { principalOf } from "../domain/access";
import { confirmBulkAction } from "../server/commands/bulk-confirm";
import { getPool } from "../server/db";
import { bulkId } from "./bulk-input";

export const confirmBulkActionAction = defineAction({
  name: "confirmBulkActionAction",
  scope: "deadLetters:review",
  input: z.object({ bulkId }),
  run: async (input, viewer) =>
    fromCommand(await confirmBulkAction(getPool(), principalOf(viewer), input)),
});
