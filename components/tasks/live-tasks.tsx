"use client";
// The tasks list, live: the page's server render seeds it, then it re-reads the same page of
// the same filter while the tab is visible. Rows are keyed by task id, so a task that changes
// status updates in its row.
import type { TaskListItemDto, TaskPageDto } from "../../lib/server/queries/list-tasks";
import { LiveStatus } from "../live/live-status";
import { type ScreenParams, useLiveQuery } from "../live/use-live-query";
import { EmptyState } from "../ui/empty-state";
import { TasksTable } from "./tasks-table";

export function LiveTasks({
  initial,
  params,
  caption,
  empty,
}: {
  initial: TaskPageDto;
  params: ScreenParams;
  caption: string;
  empty: { title: string; body: string };
}) {
  const live = useLiveQuery<TaskPageDto>({ screen: "tasks", params, initialData: initial });
  const tasks: TaskListItemDto[] = live.data.tasks;
  return (
    <div className="space-y-3">
      <LiveStatus
        updatedAt={live.dataUpdatedAt}
        fetching={live.isFetching}
        error={live.error}
        onRefresh={() => void live.refetch()}
      />
      {tasks.length === 0 ? (
        <EmptyState title={empty.title}>{empty.body}</EmptyState>
      ) : (
        <TasksTable tasks={tasks} caption={caption} />
      )}
    </div>
  );
}
