// The filtered list of dead tasks. Agent names and error messages come from user code: rendered
// as text only. With `selection`, each row has a checkbox.
import type { DeadTaskDto } from "../../lib/server/queries/list-dead-letter-tasks";
import { TaskLink } from "../tasks/task-link";
import { Duration } from "../ui/duration";
import { DEAD_REASON_LABEL } from "../ui/labels";
import { Table, Td, Th } from "../ui/table";

export type RowSelection = {
  has: (id: string) => boolean;
  toggle: (task: DeadTaskDto) => void;
  allOnPage: boolean;
  togglePage: () => void;
};

export function DeadTaskTable({
  tasks,
  caption,
  selection,
}: {
  tasks: DeadTaskDto[];
  caption: string;
  selection?: RowSelection;
}) {
  return (
    <Table caption={caption}>
      <thead>
        <tr>
          {selection ? (
            <Th>
              <input
                type="checkbox"
                aria-label="Select every task on this page"
                checked={selection.allOnPage}
                onChange={selection.togglePage}
                className="size-4"
              />
            </Th>
          ) : null}
          <Th>Task</Th>
          <Th>Agent</Th>
          <Th>Reason</Th>
          <Th>Last error</Th>
          <Th align="right">Attempts</Th>
          <Th>Dead for</Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {tasks.map((t) => (
          <tr key={t.id} data-task-id={t.id} data-kb-row={t.id}>
            {selection ? (
              <Td>
                <input
                  type="checkbox"
                  aria-label={`Select task ${t.id.slice(0, 8)}`}
                  checked={selection.has(t.id)}
                  onChange={() => selection.toggle(t)}
                  className="size-4"
                />
              </Td>
            ) : null}
            <Td>
              <TaskLink id={t.id} />
            </Td>
            <Td>
              <span className="whitespace-nowrap">{t.agent}</span>
              {t.tool ? <span className="block text-xs text-slate-600">at {t.tool}</span> : null}
            </Td>
            <Td>{DEAD_REASON_LABEL[t.reason]}</Td>
            <Td>
              {t.lastError ? (
                <span
                  className="line-clamp-2 max-w-[28rem] break-words text-slate-700"
                  title={t.lastError}
                >
                  {t.lastError}
                </span>
              ) : (
                <span className="text-slate-600">—</span>
              )}
            </Td>
            <Td align="right">{t.attempts}</Td>
            <Td>
              <span className="whitespace-nowrap">
                <Duration seconds={t.ageSeconds} />
              </span>
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
