// One task of a bulk action, previewed on its own as the bulk would act on it now: the effects
// its replay or resume reaches, which would act or be deduplicated, which move money and how
// much. Opened row by row on the bulk's page, so the set's page never reads every preview.
import type pg from "pg";
import { withTransaction } from "../../../db/client";
import { requireScope, type Viewer } from "../../domain/access";
import type { BulkAction } from "../../domain/bulk-actions";
import type { MemberPreview } from "../../domain/bulk-preview";
import { previewsOf, readBulkSet } from "../review/bulk-set";

export type BulkMemberPreviewDto = {
  taskId: string;
  /** Null when there is none to show; `note` says why. */
  preview: MemberPreview | null;
  note: string | null;
};

export async function previewBulkMember(
  pool: pg.Pool,
  viewer: Viewer | null,
  input: { bulkId: string; taskId: string },
): Promise<BulkMemberPreviewDto | null> {
  requireScope(viewer, "tasks:read");
  return withTransaction(pool, async (client) => {
    await client.query("set transaction read only");
    const { rows } = await client.query<{
      action: BulkAction;
      step_name: string | null;
      task_version: number;
      as_of: string;
    }>(
      `select b.action, b.params->>'stepName' as step_name, m.task_version,
              to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as as_of
       from bulk_actions b join bulk_action_members m on m.bulk_id = b.id
       where b.id = $1 and m.task_id = $2`,
      [input.bulkId, input.taskId],
    );
    const member = rows[0];
    if (!member) return null;
    if (member.action === "reject" || member.action === "cancel") {
      return {
        taskId: input.taskId,
        preview: null,
        note: `A ${member.action === "reject" ? "rejection" : "cancellation"} ends the task: no effect runs.`,
      };
    }
    const [task] = await readBulkSet(
      client,
      { kind: "ids", tasks: [{ taskId: input.taskId, version: member.task_version }] },
      member.as_of,
      member.action === "replay" ? member.step_name : null,
      1,
    );
    const [preview] = task ? await previewsOf(client, member.action, [task]) : [];
    return {
      taskId: input.taskId,
      preview: preview ?? null,
      note: preview
        ? null
        : task && task.status !== "dead"
          ? `This task is ${task.status} now: the bulk action will not act on it.`
          : `This task has no step named ${member.step_name ?? "(none)"}: the bulk action will refuse it.`,
    };
  });
}
