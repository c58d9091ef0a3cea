// A task whose ledger stream `agent-ledger archive` took (issue 23): which archive, since when,
// and what that means for the task. Shared by the task page and the "Why?" answer.
import type { ArchivedDto } from "../../lib/server/queries/get-task-detail";
import { Timestamp } from "../ui/timestamp";

export function ArchivedNotice({ archived }: { archived: ArchivedDto }) {
  return (
    <div
      role="note"
      className="rounded-md border border-slate-300 bg-slate-100 px-4 py-3 text-slate-900"
      data-testid="task-archived"
    >
      <p className="font-medium">
        Archived on <Timestamp iso={archived.at} /> in archive{" "}
        <code className="font-mono text-xs break-all" data-testid="task-archive-id">
          {archived.archiveId}
        </code>
      </p>
      <p className="mt-1 text-sm text-slate-700">
        Its ledger entries are in the archive's files, signed and verifiable with{" "}
        <code className="font-mono text-xs">agent-ledger verify --archive DIR</code>, and its stream
        is frozen: nothing more can be appended to it.
      </p>
    </div>
  );
}
