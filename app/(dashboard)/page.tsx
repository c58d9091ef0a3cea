import type { Metadata } from "next";
import Link from "next/link";
import { LedgerTable } from "../../components/ledger/ledger-table";
import { Card } from "../../components/ui/card";
import { EmptyState } from "../../components/ui/empty-state";
import {
  DEAD_REASON_LABEL,
  EFFECT_STATUS_LABEL,
  EFFECT_STATUS_TONE,
  TASK_STATUS_LABEL,
  TASK_STATUS_TONE,
} from "../../components/ui/labels";
import { PageHeader } from "../../components/ui/page-header";
import { Stat } from "../../components/ui/stat";
import { Timestamp } from "../../components/ui/timestamp";
import { pageViewer } from "../../lib/auth/page";
import { env } from "../../lib/env";
import { getDb } from "../../lib/server/db";
import { getOverview } from "../../lib/server/queries/get-overview";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Overview" };

const linkClass = "font-medium text-sky-800 underline-offset-2 hover:underline";

export default async function OverviewPage() {
  const viewer = await pageViewer("tasks:read");
  const overview = await getOverview(getDb(), viewer, { leaseMs: env().AGENT_LEDGER_LEASE_MS });
  const { live, lastSeenAt } = overview.workers;
  const deadTotal = overview.deadByReason.reduce((sum, r) => sum + r.count, 0);

  return (
    <>
      <PageHeader
        title="Overview"
        description="What your agents are doing now, what needs a person, and the latest entries in the ledger."
        aside={
          <>
            As of <Timestamp iso={overview.asOf} />
            <span className="block" data-testid="workers-live">
              {live === 1 ? "1 live worker" : `${live.toLocaleString("en-US")} live workers`}
              {lastSeenAt ? (
                <>
                  {" "}
                  (last seen <Timestamp iso={lastSeenAt} />)
                </>
              ) : (
                " (none has reported in yet)"
              )}
            </span>
          </>
        }
      />
      <div className="space-y-6">
        <Card
          id="tasks"
          title="Tasks by status"
          description={`${overview.tasksTotal.toLocaleString("en-US")} tasks in total.`}
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
                  href={`/tasks?status=${s.status}`}
                  testId={`tasks-${s.status}`}
                />
              </li>
            ))}
          </ul>
          {overview.tasksTotal === 0 ? (
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
            description={
              deadTotal === 0
                ? "No task is waiting for triage."
                : `${deadTotal.toLocaleString("en-US")} dead tasks wait for a reviewer.`
            }
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
              <Stat label="Entries" value={overview.ledger.entries} testId="ledger-entries" />
            </li>
            <li>
              <Stat label="Streams" value={overview.ledger.streams} testId="ledger-streams" />
            </li>
          </ul>
          {overview.latestEntries.length === 0 ? (
            <EmptyState title="No ledger entries yet">
              Every enqueue, step, tool call, retry, dead letter and review decision is appended
              here as it happens, with who did it.
            </EmptyState>
          ) : (
            <LedgerTable
              entries={overview.latestEntries}
              caption={`The ${overview.latestEntries.length} most recent ledger entries`}
            />
          )}
        </Card>
      </div>
    </>
  );
}
