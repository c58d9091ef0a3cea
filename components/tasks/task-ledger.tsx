// The ledger card's body on the task page: the task's stream as a timeline, the whole story
// of a long stream with its left-out middle, or one window of it with a pager.
import Link from "next/link";
import type { TaskDetailDto } from "../../lib/server/queries/get-task-detail";
import { EmptyState } from "../ui/empty-state";
import { LedgerTimeline } from "./ledger-timeline";

function ledgerHref(id: string, from?: number): string {
  return from === undefined ? `/tasks/${id}#ledger` : `/tasks/${id}?from=${from}#ledger`;
}

const pagerClass =
  "rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-800 shadow-xs hover:bg-slate-50";

/** Moves through a long stream in windows, and back to the whole story. */
function TimelinePager({ detail, pageSize }: { detail: TaskDetailDto; pageSize: number }) {
  const { window, total, entries } = detail.timeline;
  if (window === null) return null;
  const first = entries[0]?.seq;
  const last = entries.at(-1)?.seq;
  const id = detail.task.id;
  return (
    <nav
      aria-label="Ledger entries of this task"
      className="mb-4 flex flex-wrap items-center gap-2"
    >
      <p className="mr-2 text-sm text-slate-700">
        {first !== undefined && last !== undefined
          ? `Entries #${first} to #${last} of ${total.toLocaleString("en-US")}.`
          : `No entries from #${window.from}: the stream has ${total.toLocaleString("en-US")}.`}
      </p>
      {window.from > 1 ? (
        <Link
          href={ledgerHref(id, Math.max(1, Math.min(window.from, total + 1) - pageSize))}
          className={pagerClass}
        >
          Earlier entries
        </Link>
      ) : null}
      {window.from + pageSize <= total ? (
        <Link href={ledgerHref(id, window.from + pageSize)} className={pagerClass}>
          Later entries
        </Link>
      ) : null}
      <Link href={ledgerHref(id)} className={pagerClass}>
        Whole story
      </Link>
    </nav>
  );
}

/** `pageSize`: the query's window (TASK_TIMELINE_PAGE), passed in so a live client view can render this. */
export function TaskLedger({ detail, pageSize }: { detail: TaskDetailDto; pageSize: number }) {
  const { timeline } = detail;
  if (timeline.entries.length === 0) {
    // An empty window is explained by its pager.
    return timeline.window !== null ? (
      <TimelinePager detail={detail} pageSize={pageSize} />
    ) : (
      <EmptyState title="No ledger entries">
        Tasks enqueued through Agent Ledger open their stream with a task.enqueued entry.
      </EmptyState>
    );
  }
  return (
    <>
      <TimelinePager detail={detail} pageSize={pageSize} />
      <LedgerTimeline
        entries={timeline.entries}
        gap={
          timeline.gap
            ? { ...timeline.gap, href: ledgerHref(detail.task.id, timeline.gap.afterSeq + 1) }
            : null
        }
        effectKeys={detail.effects.map((e) => e.key)}
      />
    </>
  );
}
