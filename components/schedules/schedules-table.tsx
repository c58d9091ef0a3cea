// Schedules with their cron as written, time zone, next and last occurrence (in the schedule's
// own zone, and UTC in the tooltip), the last occurrence's task, state and source.
import Link from "next/link";
import type { ScheduleDto } from "../../lib/server/queries/list-schedules";
import { Badge } from "../ui/badge";
import { Table, Td, Th } from "../ui/table";
import { ScheduleControls } from "./schedule-controls";

const linkClass = "font-medium text-sky-800 underline-offset-2 hover:underline";

function ZonedTime({ iso, timezone }: { iso: string | null; timezone: string }) {
  if (!iso) return <span className="text-slate-600">—</span>;
  const text = new Intl.DateTimeFormat("en-GB", {
    timeZone: timezone,
    dateStyle: "medium",
    timeStyle: "medium",
  }).format(new Date(iso));
  return (
    <time dateTime={iso} title={`${iso} (UTC)`} className="whitespace-nowrap tabular-nums">
      {text}
    </time>
  );
}

export function SchedulesTable({
  schedules,
  canWrite,
}: {
  schedules: ScheduleDto[];
  canWrite: boolean;
}) {
  return (
    <Table caption="Schedules">
      <thead>
        <tr>
          <Th>Agent / name</Th>
          <Th>Cron</Th>
          <Th>Next run</Th>
          <Th>Last run</Th>
          <Th>State</Th>
          {canWrite ? <Th>Actions</Th> : null}
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {schedules.map((s) => (
          <tr key={s.id} data-schedule={`${s.agent}/${s.name}`}>
            <Td>
              <span className="font-medium text-slate-900">{s.agent}</span>
              <span className="block font-mono text-xs text-slate-700">{s.name}</span>
            </Td>
            <Td>
              <code className="font-mono">{s.cron}</code>
              <span className="block text-xs text-slate-600">
                {s.timezone} · missed: {s.missed}
              </span>
            </Td>
            <Td>
              {s.paused ? (
                <span className="text-slate-600">paused</span>
              ) : (
                <ZonedTime iso={s.nextOccurrenceAt} timezone={s.timezone} />
              )}
            </Td>
            <Td>
              <ZonedTime iso={s.lastOccurrenceAt} timezone={s.timezone} />
              {s.lastTask ? (
                <Link href={`/tasks/${s.lastTask.id}`} className={`${linkClass} block text-xs`}>
                  task ({s.lastTask.status})
                </Link>
              ) : null}
            </Td>
            <Td>
              <span className="flex flex-wrap gap-1">
                {s.paused ? <Badge tone="warn">paused</Badge> : <Badge tone="good">running</Badge>}
                <Badge>{s.source === "code" ? "from code" : "added by an admin"}</Badge>
              </span>
            </Td>
            {canWrite ? (
              <Td>
                <ScheduleControls schedule={s} />
              </Td>
            ) : null}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
