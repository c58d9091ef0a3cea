// The inbox's largest dead-letter error groups: when one outage dead-letters many tasks with the
// same error, the way on is one bulk action over the group, not one task page each. Each group
// links to the dead-letter list filtered to it, where its tasks are selected and acted on
// together; for a reviewer who may act, a second link opens that list with the whole group
// already selected (what the filter shows, frozen when the action is confirmed), so an outage is
// a group link, an action and its confirmation. Messages come from user code: rendered as text only.
import Link from "next/link";
import type { InboxErrorGroupDto } from "../../lib/server/queries/list-inbox";
import { deadLettersHref } from "../dead-letters/href";
import { Badge } from "../ui/badge";
import { DEAD_REASON_LABEL } from "../ui/labels";
import { Timestamp } from "../ui/timestamp";

export function ErrorGroups({
  groups,
  mayAct,
}: {
  groups: InboxErrorGroupDto[];
  /** The viewer may take a bulk action on dead tasks: each group offers its whole set selected. */
  mayAct: boolean;
}) {
  if (groups.length === 0) return null;
  return (
    <section aria-labelledby="inbox-groups-heading" className="mb-6" data-testid="inbox-groups">
      <h2 id="inbox-groups-heading" className="mb-1 text-base font-semibold text-slate-900">
        Dead letters that share an error
      </h2>
      <p className="mb-2 text-sm text-slate-600">
        {mayAct
          ? "Open a group to read its tasks, or select all of them at once, then resume, reject, replay or cancel them together."
          : "Open a group to read its tasks; a reviewer acts on them together."}
      </p>
      <ol className="divide-y divide-slate-100 rounded-lg border border-slate-200 bg-white shadow-sm">
        {groups.map((g) => (
          <li
            key={`${g.reason}:${g.fingerprint}`}
            data-testid="inbox-group"
            data-fingerprint={g.fingerprint}
            className="flex flex-col gap-1 px-4 py-3 text-sm sm:flex-row sm:items-start sm:justify-between"
          >
            <div className="min-w-0 space-y-1">
              <p className="flex flex-wrap items-center gap-2">
                <Badge tone="bad">{DEAD_REASON_LABEL[g.reason]}</Badge>
                <Link
                  href={deadLettersHref({ reason: g.reason, fingerprint: g.fingerprint })}
                  className="min-w-0 font-medium break-words text-sky-800 underline-offset-2 hover:underline"
                >
                  {g.count.toLocaleString("en-US")} tasks: {g.fingerprint || "no error recorded"}
                </Link>
              </p>
              {g.message && g.message !== g.fingerprint ? (
                <p className="line-clamp-2 break-words text-xs text-slate-600">{g.message}</p>
              ) : null}
            </div>
            <div className="flex shrink-0 flex-col gap-1 sm:items-end">
              {/* The address cannot name "no error recorded" (an empty fingerprint is no filter),
                  so that group's "all" would be more than the group: it is opened, not selected. */}
              {mayAct && g.fingerprint !== "" ? (
                <Link
                  href={deadLettersHref({
                    reason: g.reason,
                    fingerprint: g.fingerprint,
                    select: "all",
                  })}
                  className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-800 shadow-xs hover:bg-slate-50"
                  aria-label={`Select all ${g.count.toLocaleString("en-US")} to act on them: ${g.fingerprint}`}
                  data-testid="inbox-group-select-all"
                >
                  Select all {g.count.toLocaleString("en-US")} to act on them
                </Link>
              ) : null}
              <p className="text-xs text-slate-600 sm:text-right">
                oldest <Timestamp iso={g.oldestAt} />
              </p>
            </div>
          </li>
        ))}
      </ol>
    </section>
  );
}
