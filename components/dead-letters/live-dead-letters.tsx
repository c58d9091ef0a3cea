"use client";
// The dead-letter screen, live: the groups and the filtered list, seeded from the server render
// and re-read while the tab is visible. Rows are keyed by task id, so a task that leaves the
// dead state disappears from its place without moving the reviewer's scroll. Every count on the
// screen (the cards per reason, the group headings, the list's heading, the undelivered alerts)
// comes from the same live read, which is one database snapshot.
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import type { DeadLettersScreenDto } from "../../lib/server/queries/dead-letters-screen";
import type { BulkActionDto } from "../../lib/server/queries/get-bulk-action";
import type { DeadLetterFilter } from "../../lib/server/review/dead-letter-filter";
import { FailingDestinations } from "../alerts/failing-destinations";
import { LiveStatus } from "../live/live-status";
import { type ScreenParams, useLiveQuery } from "../live/use-live-query";
import { EmptyState } from "../ui/empty-state";
import { DEAD_REASON_LABEL } from "../ui/labels";
import { Stat } from "../ui/stat";
import { BulkProgress } from "./bulk-progress";
import { type BulkAllowed, BulkTriage } from "./bulk-triage";
import { DeadLetterGroups } from "./dead-letter-groups";
import { deadLettersHref } from "./href";

export function LiveDeadLetters({
  initial,
  params,
  filtered,
  filter,
  allowed,
  me,
  pendingBulks,
  canRetryAlerts,
}: {
  initial: DeadLettersScreenDto;
  params: ScreenParams;
  filter: DeadLetterFilter;
  /** The bulk actions this reviewer may take on dead tasks (the task-actions table). */
  allowed: BulkAllowed;
  me: string;
  /** Bulk actions waiting for a second reviewer. */
  pendingBulks: BulkActionDto[];
  /** A filter is set: the list is titled by it. */
  filtered: boolean;
  /** The viewer may retry a destination's undelivered alerts (alerts:write). */
  canRetryAlerts: boolean;
}) {
  const live = useLiveQuery<DeadLettersScreenDto>({
    screen: "dead-letters",
    params,
    initialData: initial,
  });
  const { groups, list, alerts, includesSystem } = live.data;
  // `select=all` (deadLettersHref): the list opens with the whole filter selected. Not a filter
  // field, so it stays out of the live read and is dropped by the form and the other links.
  const selectAll = useSearchParams().get("select") === "all";
  const withSystem = { ...filter, system: "include" as const };
  return (
    <div className="space-y-6">
      <ul className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6">
        {groups.groups.map((g) => (
          <li key={g.reason}>
            <Stat
              label={DEAD_REASON_LABEL[g.reason]}
              value={g.count}
              tone="bad"
              href={
                g.count > 0
                  ? deadLettersHref({ reason: g.reason, system: filter.system })
                  : undefined
              }
              testId={`dead-letters-${g.reason}`}
            />
          </li>
        ))}
      </ul>
      <FailingDestinations
        alerts={alerts}
        canRetry={canRetryAlerts}
        listHref={deadLettersHref({ agent: "alert-delivery" })}
      />
      {alerts.undelivered > 0 ? (
        <p className="text-sm text-slate-600" data-testid="dead-letters-system-note">
          {includesSystem
            ? "The counts below include the product’s own alert deliveries. "
            : `The counts below are the agents’ dead letters; the ${alerts.undelivered.toLocaleString("en-US")} undelivered alerts above are not among them. `}
          <Link
            className="font-medium text-sky-800 underline-offset-2 hover:underline"
            href={deadLettersHref(includesSystem ? { ...filter, system: undefined } : withSystem)}
          >
            {includesSystem ? "Show the agents’ only" : "Count them in"}
          </Link>
        </p>
      ) : null}
      <LiveStatus
        updatedAt={live.dataUpdatedAt}
        fetching={live.isFetching}
        error={live.error}
        onRefresh={() => void live.refetch()}
      />
      {pendingBulks.length > 0 ? (
        <section aria-labelledby="pending-bulks-heading" className="space-y-2">
          <h2 id="pending-bulks-heading" className="text-base font-semibold text-slate-900">
            Bulk actions waiting for a second reviewer
          </h2>
          {pendingBulks.map((b) => (
            <BulkProgress key={b.id} initial={b} me={me} />
          ))}
        </section>
      ) : null}
      {groups.total === 0 ? (
        <EmptyState title="No dead letters">
          When a task runs out of attempts, fails in a way retrying cannot fix, times out, goes over
          budget or leaves a side effect with an unknown outcome, it stops here for triage instead
          of retrying forever.
        </EmptyState>
      ) : (
        <DeadLetterGroups groups={groups} system={filter.system} />
      )}
      <section
        id="dead-letter-list"
        aria-labelledby="dead-letter-list-heading"
        className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-5"
      >
        <h2 id="dead-letter-list-heading" className="mb-3 text-base font-semibold text-slate-900">
          {filtered ? "Dead tasks matching this filter" : "All dead tasks"} ·{" "}
          <span data-testid="dead-letters-matching">{list.matching.toLocaleString("en-US")}</span>
        </h2>
        {/* Always mounted: a bulk action this page started keeps its progress when it empties the list. */}
        <BulkTriage
          tasks={list.tasks}
          matching={list.matching}
          filter={filter}
          allowed={allowed}
          me={me}
          selectAll={selectAll}
          caption="Dead tasks, most recently dead first"
          empty={
            <EmptyState title="No dead task matches">
              Nothing dead matches this filter right now.
            </EmptyState>
          }
        />
      </section>
    </div>
  );
}
