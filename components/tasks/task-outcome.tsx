// What the task returned, or its last error; a success after failed attempts keeps the error
// one click away.
import type { TaskDetailDto } from "../../lib/server/queries/get-task-detail";
import { EmptyState } from "../ui/empty-state";
import { JsonView } from "./json-view";

export function TaskOutcome({ detail }: { detail: TaskDetailDto }) {
  const { task } = detail;
  if (task.result !== null) {
    return (
      <div className="space-y-3">
        <JsonView value={task.result} label="Result of the task" tall />
        {task.lastError !== null ? (
          <details className="text-sm">
            <summary className="cursor-pointer text-slate-700">
              An earlier attempt failed: {task.lastErrorMessage ?? "see the error"}
            </summary>
            <div className="mt-2">
              <JsonView value={task.lastError} label="Error of an earlier attempt" />
            </div>
          </details>
        ) : null}
      </div>
    );
  }
  if (task.lastError !== null) {
    return <JsonView value={task.lastError} label="Last error of the task" tall />;
  }
  return (
    <EmptyState title="No result yet">
      The result appears here when the task succeeds; an error, when an attempt fails.
    </EmptyState>
  );
}
