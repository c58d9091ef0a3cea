// A task whose ledger stream `agent-ledger archive` took (issue 23): which archive, since when,
// where the entries shown were read (the database, or the archive's files, verified) or why they
// could not be, and what that means for the task. Shared by the task page and the "Why?" answer.
import type { ArchivedDto } from "../../lib/server/queries/get-task-detail";
import { Timestamp } from "../ui/timestamp";

const UNAVAILABLE: Record<NonNullable<ArchivedDto["unavailable"]>["reason"], string> = {
  not_configured: "this server has no LEDGER_ARCHIVE_DIR",
  not_found: "the archive is not under this server's LEDGER_ARCHIVE_DIR",
  not_verified: "the archive's files do not verify",
};

export function ArchivedNotice({ archived }: { archived: ArchivedDto }) {
  const { unavailable } = archived;
  return (
    <div
      role="note"
      className={
        unavailable
          ? "rounded-md border border-amber-300 bg-amber-50 px-4 py-3 text-amber-950"
          : "rounded-md border border-slate-300 bg-slate-100 px-4 py-3 text-slate-900"
      }
      data-testid="task-archived"
    >
      <p className="font-medium">
        Archived on <Timestamp iso={archived.at} /> in archive{" "}
        <code className="font-mono text-xs break-all" data-testid="task-archive-id">
          {archived.archiveId}
        </code>
        {archived.source === "files" ? (
          <span data-testid="task-archive-source">
            {" "}
            — entries read from the archive files (verified)
          </span>
        ) : null}
      </p>
      {unavailable ? (
        <p className="mt-1 text-sm" data-testid="task-archive-unavailable">
          Its ledger entries are no longer in the database and this server cannot read them from the
          archive: {UNAVAILABLE[unavailable.reason]} ({unavailable.message}).
        </p>
      ) : null}
      <p className="mt-1 text-sm text-slate-700">
        Its ledger entries are in the archive's files, signed and verifiable with{" "}
        <code className="font-mono text-xs">agent-ledger verify --archive DIR</code>, and its stream
        is frozen: nothing more can be appended to it.
      </p>
    </div>
  );
}
