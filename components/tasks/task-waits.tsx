// A task's event waits (ctx.waitForEvent): what it waits for now, since when and until when,
// what each earlier wait got; the page adds the by-hand send (send-event-form.tsx) below it.
import type { ReactNode } from "react";
import type { TaskWaitsDto } from "../../lib/server/queries/task-waits";
import { Table, Td, Th } from "../ui/table";
import { Timestamp } from "../ui/timestamp";

const STATUS_WORD = { waiting: "waiting", delivered: "got its event", timed_out: "timed out" };

/** The open wait a person may send the event for by hand, or null. */
export function sendableWait({
  waits,
  canSend,
  taskStatus,
}: TaskWaitsDto & { taskStatus: string }): TaskWaitsDto["waits"][number] | null {
  if (!canSend || taskStatus !== "waiting") return null;
  return waits.find((w) => w.status === "waiting") ?? null;
}

export function TaskWaits({
  waits,
  children,
}: {
  waits: TaskWaitsDto["waits"];
  /** The by-hand send, when the viewer may. */
  children?: ReactNode;
}) {
  return (
    <div data-testid="task-waits">
      <Table caption="What the task waited for, step by step">
        <thead>
          <tr>
            <Th>Step</Th>
            <Th>Event</Th>
            <Th>Match</Th>
            <Th>Since</Th>
            <Th>Deadline</Th>
            <Th>State</Th>
          </tr>
        </thead>
        <tbody>
          {waits.map((w) => (
            <tr key={w.step}>
              <Td>{w.step}</Td>
              <Td>
                <code className="font-mono">{w.name}</code>
              </Td>
              <Td>
                <code className="font-mono text-xs break-all">{JSON.stringify(w.match)}</code>
              </Td>
              <Td>
                <Timestamp iso={w.since} />
              </Td>
              <Td>{w.deadline ? <Timestamp iso={w.deadline} /> : "none"}</Td>
              <Td>
                {STATUS_WORD[w.status]}
                {w.eventId ? (
                  <span className="block font-mono text-xs">event {w.eventId.slice(0, 8)}</span>
                ) : null}
              </Td>
            </tr>
          ))}
        </tbody>
      </Table>
      {children}
    </div>
  );
}
