// The tasks list's filter: status, in the address (/tasks?status=dead).
import { TASK_STATUSES } from "../../lib/domain/task-states";
import { FilterForm } from "../filters/filter-form";
import { TASK_STATUS_LABEL } from "../ui/labels";

export function TasksFilter({ status }: { status: string | undefined }) {
  return (
    <FilterForm
      label="Filter tasks"
      action="/tasks"
      values={{ status }}
      className="mb-4 flex flex-wrap items-end gap-3"
    >
      <div>
        <label htmlFor="tasks-status" className="block text-sm font-medium text-slate-800">
          Status
        </label>
        <select
          id="tasks-status"
          name="status"
          defaultValue={status ?? ""}
          className="mt-1 w-56 rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm shadow-xs"
        >
          <option value="">Any status</option>
          {TASK_STATUSES.map((s) => (
            <option key={s} value={s}>
              {TASK_STATUS_LABEL[s]}
            </option>
          ))}
        </select>
      </div>
      <button
        type="submit"
        className="rounded-md bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-700"
      >
        Filter
      </button>
    </FilterForm>
  );
}
