// Each attempt of one task with the version of the agent's code that ran it, marked where a retry
// ran other code than the attempt before (a deploy between two attempts).
import type { AttemptDto } from "../../lib/server/queries/task-attempts";
import { Badge } from "../ui/badge";
import { Table, Td, Th } from "../ui/table";
import { Timestamp } from "../ui/timestamp";

export function TaskAttempts({ attempts }: { attempts: AttemptDto[] }) {
  return (
    <Table caption="Attempts of this task and the code version each ran, oldest first">
      <thead>
        <tr>
          <Th align="right">Attempt</Th>
          <Th>Code version</Th>
          <Th>Worker</Th>
          <Th>Started</Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {attempts.map((a) => (
          <tr key={`${a.attempt}-${a.startedAt}`} data-attempt={a.attempt}>
            <Td align="right">
              <span className="tabular-nums">{a.attempt}</span>
            </Td>
            <Td>
              {a.version === null ? (
                <span className="text-slate-500">not recorded</span>
              ) : (
                <span data-attempt-version className="font-mono text-xs break-all">
                  {a.version}
                </span>
              )}
              {a.versionChangedFrom !== null ? (
                <span className="mt-1 block" data-version-changed>
                  <Badge tone="warn">version changed</Badge>{" "}
                  <span className="font-mono text-xs break-all text-slate-700">
                    {a.versionChangedFrom} → {a.version}
                  </span>
                </span>
              ) : null}
            </Td>
            <Td mono>
              <span className="block max-w-64 truncate" title={a.worker}>
                {a.worker}
              </span>
            </Td>
            <Td>
              <Timestamp iso={a.startedAt} />
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
