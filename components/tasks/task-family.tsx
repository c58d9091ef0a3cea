// The task this one was spawned by, and the tasks it spawned with their states: a parent's
// children are tasks of their own, each retried, dead-lettered and reviewed on its own page.
import { TASK_STATUSES, TERMINAL_STATUSES } from "../../lib/domain/task-states";
import type { TaskFamilyDto } from "../../lib/server/queries/task-family";
import { Badge } from "../ui/badge";
import { DEAD_REASON_LABEL, TASK_STATUS_LABEL, TASK_STATUS_TONE } from "../ui/labels";
import { Table, Td, Th } from "../ui/table";
import { Timestamp } from "../ui/timestamp";
import { TaskLink } from "./task-link";

/** Children not yet succeeded, rejected or cancelled. */
export function openChildren(family: TaskFamilyDto): number {
  const ended = TERMINAL_STATUSES.reduce((sum, s) => sum + (family.byStatus[s] ?? 0), 0);
  return family.childCount - ended;
}

function State({ t }: { t: TaskFamilyDto["children"][number] }) {
  return (
    <>
      <Badge tone={TASK_STATUS_TONE[t.status]}>{TASK_STATUS_LABEL[t.status]}</Badge>
      {t.deadReason ? (
        <span className="ml-2 text-xs text-slate-600">{DEAD_REASON_LABEL[t.deadReason]}</span>
      ) : null}
    </>
  );
}

export function TaskFamily({ family }: { family: TaskFamilyDto }) {
  // In the order of the states' lifecycle, so the line reads the same on every render.
  const tally = TASK_STATUSES.flatMap((status) => {
    const n = family.byStatus[status];
    return n ? [`${n} ${TASK_STATUS_LABEL[status]}`] : [];
  }).join(", ");
  return (
    <div className="space-y-4 text-sm">
      {family.parent ? (
        <p data-task-parent>
          Spawned by <TaskLink id={family.parent.id} /> ({family.parent.agent}),{" "}
          <State t={family.parent} />
        </p>
      ) : null}
      {family.childCount > 0 ? (
        <>
          <p data-task-children-tally>
            {family.childCount === 1 ? "1 child" : `${family.childCount} children`}: {tally}.
            {family.childCount > family.children.length
              ? ` The first ${family.children.length} are listed.`
              : ""}
          </p>
          <Table caption="Tasks this task spawned, oldest first">
            <thead>
              <tr>
                <Th>Task</Th>
                <Th>Agent</Th>
                <Th>State</Th>
                <Th>Enqueued</Th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {family.children.map((c) => (
                <tr key={c.id} data-task-child={c.id}>
                  <Td>
                    <TaskLink id={c.id} />
                  </Td>
                  <Td>{c.agent}</Td>
                  <Td>
                    <State t={c} />
                  </Td>
                  <Td>
                    <Timestamp iso={c.createdAt} />
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
        </>
      ) : null}
    </div>
  );
}
