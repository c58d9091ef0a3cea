// The task page as one DTO, for its server render and for GET /api/screens/task that keeps it
// live: the task's detail and the review state its buttons act on, read for the same viewer.
import type pg from "pg";
import type { z } from "zod";
import type { Db } from "../../../db/client";
import type { Viewer } from "../../domain/access";
import { type ReviewStateDto, readReviewState } from "./get-review-state";
import { getTaskDetail, type TaskDetailDto, taskIdSchema } from "./get-task-detail";
import { getTaskTimeline, type TaskTimelineViewDto } from "./get-task-timeline";
import { TASK_TIMELINE_PAGE, timelineSearchSchema } from "./list-task-timeline";
import { readTaskWaits, type TaskWaitsDto } from "./task-waits";
import { readToolSources, type ToolSourcesDto } from "./tool-sources";

/** The live route's address: the task id and the page's own search params. */
export const taskScreenSearchSchema = timelineSearchSchema.extend({ id: taskIdSchema });

export type TaskScreenDto = {
  detail: TaskDetailDto;
  review: ReviewStateDto | null;
  /** The agent's tools that come from an MCP server, by name, for the effects' markers. */
  toolSources: ToolSourcesDto;
  /** The task's event waits (ctx.waitForEvent), oldest first. */
  waits: TaskWaitsDto;
  /** Where the task's time went: queued, each attempt's run, the waits, the end. */
  timeline: TaskTimelineViewDto | null;
  /** The ledger pager's window size (a client component cannot import the query module). */
  timelinePage: number;
};

export async function getTaskScreen(
  db: Db,
  pool: pg.Pool,
  viewer: Viewer,
  search: z.output<typeof taskScreenSearchSchema>,
): Promise<TaskScreenDto | null> {
  const { id, ...window } = search;
  const detail = await getTaskDetail(db, viewer, id, window);
  if (!detail) return null;
  const [review, toolSources, waits, timeline] = await Promise.all([
    readReviewState(pool, viewer, id),
    readToolSources(pool, detail.task.agent),
    readTaskWaits(pool, viewer, id),
    getTaskTimeline(db, viewer, id),
  ]);
  return { detail, review, toolSources, waits, timeline, timelinePage: TASK_TIMELINE_PAGE };
}
