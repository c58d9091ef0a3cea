// The bulk actions' inputs as the browser sends them (zod): which tasks (explicit rows at the
// versions shown, or a filter), the action and its own fields. Shared by the preview and the
// request, so the dialog previews exactly what it then asks for.
import { z } from "zod";
import { BULK_ACTIONS } from "../domain/bulk-actions";
import type { BulkSelection } from "../server/review/bulk-set";
import { deadLetterFilterSchema } from "../server/review/dead-letter-filter";

const taskId = z
  .string({ message: "is required" })
  .trim()
  .toLowerCase()
  .pipe(z.uuid({ message: "must be a task id (a UUID)" }));

const version = z.coerce.number().int().min(1).max(2_147_483_647);

export const bulkSelectionSchema: z.ZodType<BulkSelection> = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("ids"),
    tasks: z
      .array(z.object({ taskId, version }))
      .min(1, "choose at least one task")
      .max(1000, "choose at most 1000 tasks, or select all matching the filter"),
  }),
  z.object({ kind: z.literal("filter"), filter: deadLetterFilterSchema }),
]);

export const bulkActionSchema = z.enum(BULK_ACTIONS, {
  error: `must be one of: ${BULK_ACTIONS.join(", ")}`,
});

export const stepNameSchema = z
  .string()
  .trim()
  .max(200, "must be at most 200 characters")
  .nullable()
  .transform((s) => (s === "" ? null : s));
