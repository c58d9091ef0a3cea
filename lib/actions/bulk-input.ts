// The bulk actions' inputs as the browser sends them (zod): which tasks (explicit rows at the
// versions shown, or a filter), the action and its own fields. Shared by the preview, the
// request, its confirmation and withdrawal, so the dialog previews exactly what it then asks
// for; a task's id and version parse as on the single-task review actions (review-fields).
import { z } from "zod";
import { BULK_ACTIONS } from "../domain/bulk-actions";
import type { BulkSelection } from "../server/review/bulk-set";
import { deadLetterFilterSchema } from "../server/review/dead-letter-filter";
import { optionalText, taskId, version } from "./review-fields";

/** The bulk action's own key, made by the confirmation dialog. */
export const bulkId = z.uuid({ message: "must be a UUID" });

const bulkSelectionSchema: z.ZodType<BulkSelection> = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("ids"),
    tasks: z
      .array(z.object({ taskId, version }))
      .min(1, "choose at least one task")
      .max(1000, "choose at most 1000 tasks, or select all matching the filter"),
  }),
  z.object({ kind: z.literal("filter"), filter: deadLetterFilterSchema }),
]);

const bulkActionSchema = z.enum(BULK_ACTIONS, {
  error: `must be one of: ${BULK_ACTIONS.join(", ")}`,
});

/** Why (reject: the command requires it; cancel, withdraw: optional). */
export const bulkReason = optionalText(1000);

/** Replay: the name of the step each task replays from; blank or absent is from step 1 (null). */
const stepName = optionalText(200)
  .nullable()
  .transform((name) => name ?? null);

/** What the confirmation dialog previews as it opens. */
export const bulkPreviewInput = z.object({
  action: bulkActionSchema,
  selection: bulkSelectionSchema,
  stepName,
});

/** What it then asks for: the same, under its key, as of the instant it opened. */
export const bulkRequestInput = bulkPreviewInput.extend({
  bulkId,
  reason: bulkReason,
  asOf: z.iso.datetime({ message: "must be the instant the dialog opened", offset: true }),
});
