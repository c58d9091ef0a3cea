"use server";
// Read-only: one task of a bulk action, previewed on its own as the bulk would act on it now
// (the row a reviewer opens on the bulk's page).
import { z } from "zod";
import { defineAction, fromCommand } from "../auth/guard";
import { notFound } from "../domain/command-result";
import { getPool } from "../server/db";
import { previewBulkMember } from "../server/queries/get-bulk-action-member";
import { bulkId } from "./bulk-input";
import { taskId } from "./review-fields";

export const previewBulkMemberAction = defineAction({
  name: "previewBulkMemberAction",
  scope: "tasks:read",
  input: z.object({ bulkId, taskId }),
  run: async (input, viewer) => {
    const found = await previewBulkMember(getPool(), viewer, input);
    return fromCommand(
      found
        ? { ok: true, value: found }
        : notFound("this task is not a member of that bulk action"),
    );
  },
});
