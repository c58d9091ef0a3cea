"use server";
// The reviewer confirms a bulk action: the set freezes now (bulk-request command). The key is
// the dialog's own UUID, so a double click or a retried request makes one bulk action.
import { z } from "zod";
import { defineAction, fromCommand } from "../auth/guard";
import { principalOf } from "../domain/access";
import { requestBulkAction } from "../server/commands/bulk-request";
import { getPool } from "../server/db";
import { bulkActionSchema, bulkSelectionSchema, stepNameSchema } from "./bulk-input";

export const requestBulkActionAction = defineAction({
  name: "requestBulkActionAction",
  scope: "deadLetters:review",
  input: z.object({
    bulkId: z.uuid({ message: "must be a UUID" }),
    action: bulkActionSchema,
    selection: bulkSelectionSchema,
    reason: z.string().trim().max(1000, "must be at most 1000 characters").optional(),
    stepName: stepNameSchema.optional(),
    asOf: z.iso.datetime({ message: "must be the instant the dialog opened", offset: true }),
  }),
  run: async (input, viewer) =>
    fromCommand(await requestBulkAction(getPool(), principalOf(viewer), input)),
});
