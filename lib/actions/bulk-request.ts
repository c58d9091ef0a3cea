"use server";
// The reviewer confirms a bulk action: the set freezes now (bulk-request command). The key is
// the dialog's own UUID, so a double click or a retried request makes one bulk action.
import { defineAction, fromCommand } from "../auth/guard";
import { principalOf } from "../domain/access";
import { requestBulkAction } from "../server/commands/bulk-request";
import { getPool } from "../server/db";
import { bulkRequestInput } from "./bulk-input";

export const requestBulkActionAction = defineAction({
  name: "requestBulkActionAction",
  scope: "deadLetters:review",
  input: bulkRequestInput,
  run: async (input, viewer) =>
    fromCommand(await requestBulkAction(getPool(), principalOf(viewer), input)),
});
