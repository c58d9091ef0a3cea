// Tasks as a table. Agent names and error messages come from user code: rendered as text only.
import type { TaskListItemDto } from "../../lib/server/queries/list-tasks";
import { Badge } from "../ui/badge";
import { DEAD_REASON_LABEL, TASK_STATUS_LABEL, TASK_STATUS_TONE } from "../ui/labels";
import { Table, Td, Th } from "../ui/table";
import { Timestamp } from "../ui/timestamp";
import { TaskLink } from "./task-link";

export function TasksTable({ tasks, caption }: { tasks: TaskListItemDto[]; caption: string }) {
  return (
    <Table caption={caption}>
      <thead>
        <tr>
          <Th>Task</Th>
          <Th>Agent</Th>
          <Th>Status</Th>
          <Th align="right">Attempts</Th>
          <Th>Created</Th>
          <Th>Status since</Th>
          <Th>Last error</Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {tasks.map((t) => (
          <tr key={t.id} data-task-id={t.id} data-kb-row={t.id}>
            <Td>
              <TaskLink id={t.id} />
            </Td>
            <Td>
              <span className="whitespace-nowrap">{t.agent}</span>
              {t.priority !== 0 ? (
                <span
                  className="block text-xs text-slate-600 tabular-nums"
                  data-priority={t.priority}
                >
                  priority {t.priority > 0 ? `+${t.priority}` : t.priority}
                </span>
              ) : null}
            </Td>
            <Td>
              <span className="flex flex-col items-start gap-1">
                <Badge tone={TASK_STATUS_TONE[t.status]}>{TASK_STATUS_LABEL[t.status]}</Badge>
                {t.deadReason ? (
                  <span className="text-xs text-slate-600">{DEAD_REASON_LABEL[t.deadReason]}</span>
                ) : null}
                {t.joining !== null ? (
                  <span className="text-xs text-slate-600" data-testid="waiting-for">
                    for {t.joining === 1 ? "its child" : `its ${t.joining} children`}
                  </span>
                ) : null}
                {t.waitingFor ? (
                  <span className="text-xs text-slate-600" data-testid="waiting-for">
                    for <code className="font-mono">{t.waitingFor.name}</code>
                    {Object.keys(t.waitingFor.match).length > 0
                      ? ` ${JSON.stringify(t.waitingFor.match)}`
                      : ""}
                    {t.waitingFor.deadline ? (
                      <>
                        , until <Timestamp iso={t.waitingFor.deadline} />
                      </>
                    ) : null}
                  </span>
                ) : null}
              </span>
            </Td>
            <Td align="right">{t.attempts}</Td>
            <Td>
              <Timestamp iso={t.createdAt} />
            </Td>
            <Td>
              <Timestamp iso={t.statusChangedAt} />
            </Td>
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
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
