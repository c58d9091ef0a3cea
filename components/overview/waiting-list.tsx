// The oldest item per kind of wait for a person, each linking to its task, with how many wait.
// A kind with an oldest item is a keyboard row (j/k); Enter opens that item's task.
import Link from "next/link";
import type { WaitingDto, WaitingKind } from "../../lib/server/queries/get-oldest-waiting";
import { taskHref } from "../tasks/task-link";
import { Timestamp } from "../ui/timestamp";

const KIND: Record<WaitingKind, { label: string; list: string; none: string }> = {
  dead_letter: { label: "Dead letters", list: "/dead-letters", none: "No dead letter waits." },
  approval: { label: "Approvals", list: "/approvals", none: "No approval waits." },
  second_reviewer: {
    label: "Second reviewer",
    list: "/inbox",
    none: "No money action waits for a second reviewer.",
  },
  unknown_outcome: {
    label: "Unknown outcomes",
    list: "/inbox",
    none: "Every effect's outcome is known.",
  },
};

const numberFormat = new Intl.NumberFormat("en-US");

export function WaitingList({ waiting }: { waiting: WaitingDto[] }) {
  return (
    <ul className="grid gap-3 sm:grid-cols-2 xl:grid-cols-4" data-kb-list="waiting">
      {waiting.map((w) => {
        const k = KIND[w.kind];
        return (
          <li
            key={w.kind}
            className="rounded-md border border-slate-200 p-3 text-sm"
            data-testid={`waiting-${w.kind}`}
            data-kb-row={w.oldest ? w.kind : undefined}
          >
            <p className="flex items-baseline justify-between gap-2">
              <Link
                href={k.list}
                className="font-medium text-sky-800 underline-offset-2 hover:underline"
              >
                {k.label}
              </Link>
              <span className="tabular-nums text-slate-700" data-testid={`waiting-${w.kind}-count`}>
                {numberFormat.format(w.count)} waiting
              </span>
            </p>
            {w.oldest ? (
              <p className="mt-2 text-slate-700">
                Oldest:{" "}
                <Link
                  href={taskHref(w.oldest.taskId)}
                  data-kb-open
                  className="font-mono text-sky-800 underline-offset-2 hover:underline"
                >
                  {w.oldest.agent} · {w.oldest.taskId.slice(0, 8)}
                </Link>{" "}
                ({w.oldest.detail}), since <Timestamp iso={w.oldest.since} />
              </p>
            ) : (
              <p className="mt-2 text-slate-600">{k.none}</p>
            )}
          </li>
        );
      })}
    </ul>
  );
}
