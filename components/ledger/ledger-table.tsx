// Ledger entries as a table. Every value is rendered as text (React escapes it): actors, kinds
// and streams come from agents and API callers and must never be interpreted as markup.
import Link from "next/link";
import type { LedgerEntryDto } from "../../lib/server/queries/list-ledger-entries";
import { taskHref } from "../tasks/task-link";
import { Table, Td, Th } from "../ui/table";
import { Timestamp } from "../ui/timestamp";

export function LedgerTable({ entries, caption }: { entries: LedgerEntryDto[]; caption: string }) {
  return (
    <Table caption={caption}>
      <thead>
        <tr>
          <Th align="right">ID</Th>
          <Th>Time</Th>
          <Th>Kind</Th>
          <Th>Stream</Th>
          <Th align="right">Seq</Th>
          <Th>Actor</Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {entries.map((e) => (
          <tr key={e.id} data-entry-id={e.id}>
            <Td align="right" mono>
              {e.id}
            </Td>
            <Td>
              <Timestamp iso={e.at} />
            </Td>
            <Td mono>{e.kind}</Td>
            <Td mono>
              {e.taskId ? (
                <Link
                  href={taskHref(e.taskId)}
                  prefetch={false}
                  title={`${e.stream}: open the task`}
                  className="block max-w-[22rem] truncate text-sky-800 underline-offset-2 hover:underline"
                >
                  {e.stream}
                </Link>
              ) : (
                <span className="block max-w-[22rem] truncate" title={e.stream}>
                  {e.stream}
                </span>
              )}
            </Td>
            <Td align="right" mono>
              {e.seq}
            </Td>
            <Td>
              <span className="block max-w-[16rem] truncate" title={e.actor}>
                {e.actor}
              </span>
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
