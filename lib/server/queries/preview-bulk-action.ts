// What the bulk confirmation dialog shows when it opens: the db-clock instant it opened at
// (asOf: rows dead-lettered later are never members), how many tasks the selection holds now,
// the aggregated replay/resume preview, and the step names a replay can start from.
import type pg from "pg";
import { withTransaction } from "../../../db/client";
import { requireScope, type Viewer } from "../../domain/access";
import { type BulkAction, MAX_BULK_MEMBERS } from "../../domain/bulk-actions";
import { aggregatePreviews, type BulkPreview } from "../../domain/bulk-preview";
import { type BulkSelection, previewsOf, readBulkSet } from "../review/bulk-set";

export type BulkPreviewDto = {
  asOf: string;
  count: number;
  /** More than one bulk action may freeze: the reviewer narrows the filter first. */
  tooMany: boolean;
  preview: BulkPreview | null;
  /** Step names in the selected tasks' journals, most common first (replay). */
  stepNames: string[];
};

export async function previewBulkAction(
  pool: pg.Pool,
  viewer: Viewer | null,
  input: { action: BulkAction; selection: BulkSelection; stepName: string | null },
): Promise<BulkPreviewDto> {
  requireScope(viewer, "tasks:read");
  return withTransaction(pool, async (client) => {
    await client.query("set transaction read only");
    const clock = await client.query<{ as_of: string }>(
      `select to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as as_of`,
    );
    const asOf = clock.rows[0]?.as_of ?? new Date().toISOString();
    const stepName = input.action === "replay" ? input.stepName : null;
    const members = await readBulkSet(
      client,
      input.selection,
      asOf,
      stepName,
      MAX_BULK_MEMBERS + 1,
    );
    const tooMany = members.length > MAX_BULK_MEMBERS;
    const shown = members.slice(0, MAX_BULK_MEMBERS);
    const previews = tooMany ? [] : await previewsOf(client, input.action, shown);
    const names = await client.query<{ name: string }>(
      `select name from journal_steps where task_id = any($1::uuid[])
       group by name order by count(*) desc, min(seq), name limit 20`,
      [shown.map((m) => m.taskId)],
    );
    return {
      asOf,
      count: shown.length,
      tooMany,
      preview: previews.length > 0 ? aggregatePreviews(previews) : null,
      stepNames: names.rows.map((r) => r.name),
    };
  });
}
