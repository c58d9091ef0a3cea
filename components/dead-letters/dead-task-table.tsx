// The filtered list of dead tasks. Agent names and error messages come from user code: rendered
// as text only. With `selection`, each row has a checkbox; with `extra`, a last column of the
// caller's (a bulk's page: "Preview"), and `detail` a row under a task when it returns one.
import { Fragment, type ReactNode } from "react";
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
  extra,
  detail,
}: {
  tasks: DeadTaskDto[];
  caption: string;
  selection?: RowSelection;
  extra?: { header: string; cell: (task: DeadTaskDto) => ReactNode };
  detail?: (task: DeadTaskDto) => ReactNode | null;
}) {
  const columns = 6 + (selection ? 1 : 0) + (extra ? 1 : 0);
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
          {extra ? <Th>{extra.header}</Th> : null}
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {tasks.map((t) => {
          const below = detail?.(t) ?? null;
          return (
            <Fragment key={t.id}>
              <tr data-task-id={t.id} data-kb-row={t.id}>
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
                  {t.tool ? (
                    <span className="block text-xs text-slate-600">at {t.tool}</span>
                  ) : null}
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
                {extra ? <Td>{extra.cell(t)}</Td> : null}
              </tr>
              {below ? (
                <tr data-detail-of={t.id}>
                  <td colSpan={columns} className="bg-slate-50 px-3 py-3">
                    {below}
                  </td>
                </tr>
              ) : null}
            </Fragment>
          );
        })}
      </tbody>
    </Table>
  );
}
