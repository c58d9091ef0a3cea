// The tasks list's filter: status, in the address (/tasks?status=dead).
import { TASK_STATUSES } from "../../lib/domain/task-states";
import { FilterSelect, FilterSubmit } from "../filters/filter-fields";
import { FilterForm } from "../filters/filter-form";
import { TASK_STATUS_LABEL } from "../ui/labels";

const OPTIONS = TASK_STATUSES.map((s) => ({ value: s, label: TASK_STATUS_LABEL[s] }));

export function TasksFilter({ status }: { status: string | undefined }) {
  return (
    <FilterForm
      label="Filter tasks"
      action="/tasks"
      values={{ status }}
      className="mb-4 flex flex-wrap items-end gap-3"
    >
      <FilterSelect
        id="tasks-status"
        name="status"
        label="Status"
        value={status}
        any="Any status"
        options={OPTIONS}
        width="w-56"
      />
      <FilterSubmit />
    </FilterForm>
  );
}
