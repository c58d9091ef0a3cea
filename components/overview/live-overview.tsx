"use client";
// The overview, live: the server render seeds it, then it re-reads GET /api/screens/overview
// for the same window every few seconds while the tab is visible. Counts the database only
// estimates at scale (table statistics) say "about".
import Link from "next/link";
import { OVERVIEW_WINDOW_SPEC } from "../../lib/domain/overview-window";
import type { OverviewDto } from "../../lib/server/queries/get-overview";
import type { Counted } from "../../lib/server/queries/table-counts";
import { LedgerTable } from "../ledger/ledger-table";
import { LiveStatus } from "../live/live-status";
import { useLiveQuery } from "../live/use-live-query";
import { Card } from "../ui/card";
import { EmptyState } from "../ui/empty-state";
import {
  DEAD_REASON_LABEL,
  EFFECT_STATUS_LABEL,
  EFFECT_STATUS_TONE,
  TASK_STATUS_LABEL,
  TASK_STATUS_TONE,
} from "../ui/labels";
import { Stat } from "../ui/stat";
import { Timestamp } from "../ui/timestamp";
import { OverviewCharts } from "./overview-charts";
import { WaitingList } from "./waiting-list";

const linkClass = "font-medium text-sky-800 underline-offset-2 hover:underline";
const numberFormat = new Intl.NumberFormat("en-US");

const ABOUT = "About: estimated from table statistics";

function about(c: Counted): string | undefined {
  return c.approximate ? ABOUT : undefined;
}

function countText(c: Counted): string {
  return `${c.approximate ? "about " : ""}${numberFormat.format(c.count)}`;
}

export function LiveOverview({ initial }: { initial: OverviewDto }) {
  const live = useLiveQuery<OverviewDto>({
    screen: "overview",
    params: { window: initial.series.window },
    initialData: initial,
  });
  const overview = live.data;
  const { live: workersLive, lastSeenAt } = overview.workers;
  const deadTotal = overview.deadByReason.reduce((sum, r) => sum + r.count, 0);
  const windowLabel = OVERVIEW_WINDOW_SPEC[overview.series.window].label.toLowerCase();

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center justify-between gap-2 text-sm text-slate-600">
        <LiveStatus
          updatedAt={live.dataUpdatedAt}
          fetching={live.isFetching}
          error={live.error}
          onRefresh={() => void live.refetch()}
        />
        <p>
          As of <Timestamp iso={overview.asOf} /> ·{" "}
          <span data-testid="workers-live">
            {workersLive === 1
              ? "1 live worker"
              : `${numberFormat.format(workersLive)} live workers`}
            {lastSeenAt ? (
              <>
                {" "}
                (last seen <Timestamp iso={lastSeenAt} />)
              </>
            ) : (
              " (none has reported in yet)"
            )}
          </span>
        </p>
      </div>

      <Card
        id="activity"
        title="Activity"
        description={`What finished, failed and was dead-lettered, ${windowLabel}, from the ledger.`}
      >
        <OverviewCharts series={overview.series} />
      </Card>

      <Card
        id="waiting"
        title="Waiting for a person"
        description="The oldest item of each kind, with how many wait."
        action={
          <Link href="/inbox" className={linkClass}>
            Inbox
          </Link>
        }
      >
        <WaitingList waiting={overview.waiting} />
      </Card>

      <Card
        id="tasks"
        title="Tasks by status"
        description={`${countText(overview.tasksTotal)} tasks in total.`}
        action={
          <Link href="/tasks" className={linkClass}>
            All tasks
          </Link>
        }
      >
        <ul className="grid grid-cols-2 gap-3 sm:grid-cols-4">
          {overview.tasksByStatus.map((s) => (
            <li key={s.status}>
              <Stat
                label={TASK_STATUS_LABEL[s.status]}
                value={s.count}
                tone={TASK_STATUS_TONE[s.status]}
                hint={about(s)}
                href={`/tasks?status=${s.status}`}
                testId={`tasks-${s.status}`}
              />
            </li>
          ))}
        </ul>
        {overview.tasksTotal.count === 0 ? (
          <div className="mt-4">
            <EmptyState title="No tasks yet">
              Tasks appear here as soon as they are enqueued, from the CLI (
              <code className="font-mono">agent-ledger enqueue</code>) or the HTTP API.
            </EmptyState>
          </div>
        ) : null}
      </Card>

      <div className="grid gap-6 lg:grid-cols-2">
        <Card
          id="dead-letters"
          title="Dead letters by reason"
          description={`${
            deadTotal === 0
              ? "No task is waiting for triage."
              : `${numberFormat.format(deadTotal)} dead tasks wait for a reviewer.`
          }${
            overview.undeliveredAlerts > 0
              ? ` Apart from them: ${numberFormat.format(overview.undeliveredAlerts)} undelivered alerts (the product’s own deliveries).`
              : ""
          }`}
          action={
            <Link href="/dead-letters" className={linkClass}>
              Triage
            </Link>
          }
        >
          <ul className="grid grid-cols-2 gap-3 sm:grid-cols-3">
            {overview.deadByReason.map((r) => (
              <li key={r.reason}>
                <Stat
                  label={DEAD_REASON_LABEL[r.reason]}
                  value={r.count}
                  tone="bad"
                  testId={`dead-${r.reason}`}
                />
              </li>
            ))}
          </ul>
        </Card>

        <Card
          id="effects"
          title="Side effects"
          description="Each effect runs once per idempotency key."
        >
          <ul className="grid grid-cols-2 gap-3 sm:grid-cols-4 lg:grid-cols-2 2xl:grid-cols-4">
            {overview.effectsByStatus.map((e) => (
              <li key={e.status}>
                <Stat
                  label={EFFECT_STATUS_LABEL[e.status]}
                  value={e.count}
                  tone={EFFECT_STATUS_TONE[e.status]}
                  hint={about(e)}
                  testId={`effects-${e.status}`}
                />
              </li>
            ))}
            <li>
              <Stat
                label="Outcome unknown"
                value={overview.effectsOutcomeUnknown}
                tone="warn"
                hint="In flight past their lease"
                testId="effects-outcome-unknown"
              />
            </li>
          </ul>
        </Card>
      </div>

      <Card
        id="ledger"
        title="Ledger"
        description={
          overview.ledger.latestAt ? (
            <>
              Latest entry at <Timestamp iso={overview.ledger.latestAt} />.
            </>
          ) : (
            "Nothing has been recorded yet."
          )
        }
        action={
          <Link href="/ledger" className={linkClass}>
            Browse the ledger
          </Link>
        }
      >
        <ul className="mb-4 grid grid-cols-2 gap-3 sm:grid-cols-4">
          <li>
            <Stat
              label="Entries"
              value={overview.ledger.entries.count}
              hint={
                overview.ledger.entries.approximate
                  ? "About: the newest entry's id (appends that rolled back left gaps)"
                  : undefined
              }
              testId="ledger-entries"
            />
          </li>
          <li>
            <Stat
              label="Streams"
              value={overview.ledger.streams.count}
              hint={about(overview.ledger.streams)}
              testId="ledger-streams"
            />
          </li>
        </ul>
        {overview.latestEntries.length === 0 ? (
          overview.ledgerHidden ? (
            <p className="text-sm text-slate-600">
              Your access does not include reading the ledger.
            </p>
          ) : (
            <EmptyState title="No ledger entries yet">
              Every enqueue, step, tool call, retry, dead letter and review decision is appended
              here as it happens, with who did it.
            </EmptyState>
          )
        ) : (
          <LedgerTable
            entries={overview.latestEntries}
            caption={`The ${overview.latestEntries.length} most recent ledger entries`}
          />
        )}
      </Card>
    </div>
  );
}
