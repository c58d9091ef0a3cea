"use server";
// Read-only: what the bulk confirmation dialog shows as it opens (count, aggregated preview,
// step names) and the db-clock asOf it carries into the request.
import { defineAction, fromCommand } from "../auth/guard";
import { getPool } from "../server/db";
import { previewBulkAction } from "../server/queries/preview-bulk-action";
import { bulkPreviewInput } from "./bulk-input";

export const previewBulkActionAction = defineAction({
  name: "previewBulkActionAction",
  scope: "deadLetters:review",
  input: bulkPreviewInput,
  run: async (input, viewer) =>
    fromCommand({ ok: true, value: await previewBulkAction(getPool(), viewer, input) }),
});
