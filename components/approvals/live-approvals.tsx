"use client";
// The approvals screen, live: the server render seeds it, then it re-reads the pending requests,
// the two-person state their buttons act on and the latest decisions while the tab is visible,
// and at once after a decision. Requests are keyed by approval id, so a request another
// reviewer decided leaves in place and an open dialog on another request stays open.
import type { ApprovalsScreenDto } from "../../lib/server/queries/get-approvals-screen";
import { LiveStatus } from "../live/live-status";
import { useLiveQuery } from "../live/use-live-query";
import { ReviewAnnouncer } from "../review/announcer";
import { ApprovalActions } from "../review/approval-actions";
import { Card } from "../ui/card";
import { Duration } from "../ui/duration";
import { EmptyState } from "../ui/empty-state";
import { Stat } from "../ui/stat";
import { DecidedApprovals } from "./decided-approvals";
import { PendingApproval } from "./pending-approval";

export function LiveApprovals({
  initial,
  actor,
  decidedLimit,
}: {
  initial: ApprovalsScreenDto;
  /** The viewer as the ledger names them: a money approval's first yes is compared with it. */
  actor: string;
  decidedLimit: number;
}) {
  const live = useLiveQuery<ApprovalsScreenDto>({ screen: "approvals", initialData: initial });
  const { approvals, reviews } = live.data;
  const oldest = approvals.pending[0];
  return (
    <div className="space-y-6">
      <LiveStatus
        updatedAt={live.dataUpdatedAt}
        fetching={live.isFetching}
        error={live.error}
        onRefresh={() => void live.refetch()}
      />
      <ul className="grid grid-cols-2 gap-3 sm:grid-cols-3">
        <li>
          <Stat
            label="Waiting for a decision"
            value={approvals.pendingTotal}
            tone="warn"
            testId="approvals-pending"
          />
        </li>
        <li>
          <div className="relative block h-full rounded-md border border-slate-200 bg-white py-3 pr-3 pl-4 shadow-xs">
            <span className="block text-sm font-medium text-slate-600">Oldest waiting</span>
            <span className="mt-1 block text-2xl font-semibold text-slate-900">
              {oldest ? <Duration seconds={oldest.waitedSeconds} /> : "—"}
            </span>
          </div>
        </li>
      </ul>

      <section aria-labelledby="pending-heading">
        <h2 id="pending-heading" className="mb-3 text-base font-semibold text-slate-900">
          Pending, oldest first
          {approvals.pendingTotal > approvals.pending.length ? (
            <span className="font-normal text-slate-600">
              {" "}
              (the {approvals.pending.length} oldest of{" "}
              {approvals.pendingTotal.toLocaleString("en-US")})
            </span>
          ) : null}
        </h2>
        <p className="mb-3 text-sm text-slate-600">
          An approval is bound to the request's idempotency key and payload fingerprint: it
          authorizes exactly these arguments, once. A re-run that changes them asks again.
        </p>
        <ReviewAnnouncer>
          {approvals.pending.length === 0 ? (
            <EmptyState title="Nothing is waiting for approval">
              When an agent reaches a tool that needs a person's yes (a refund above the threshold,
              say), its task pauses and the request appears here with the exact arguments, their
              fingerprint and how long it has waited.
            </EmptyState>
          ) : (
            <ol className="space-y-4">
              {approvals.pending.map((a) => {
                const review = reviews[a.taskId];
                // A keyboard row: j/k select the request, Enter opens its task, a/r open its
                // own approve and reject dialogs.
                return (
                  <li key={a.id} data-kb-row={a.id} data-task-id={a.taskId}>
                    <PendingApproval approval={a} />
                    {review?.allowed.approve.allowed ? (
                      <fieldset
                        className="mt-2 rounded-md border border-slate-200 bg-slate-50 px-4 py-3"
                        data-approval-actions={a.id}
                      >
                        <legend className="sr-only">
                          Decide {a.tool} for task {a.taskId.slice(0, 8)}
                        </legend>
                        <ApprovalActions
                          actor={actor}
                          target={{
                            taskId: a.taskId,
                            version: review.version,
                            tool: a.tool,
                            money: review.money,
                            firstApprovedBy: review.firstApprovedBy,
                            firstApprovedAt: review.firstApprovedAt,
                          }}
                        />
                      </fieldset>
                    ) : null}
                  </li>
                );
              })}
            </ol>
          )}
        </ReviewAnnouncer>
      </section>

      <Card
        id="decided"
        title="Recently decided"
        description={`The latest ${decidedLimit} decisions, newest first.`}
      >
        {approvals.decided.length === 0 ? (
          <EmptyState title="No decisions yet">
            Approvals and rejections appear here with who made them, the reason and whether the
            approved effect has run since.
          </EmptyState>
        ) : (
          <DecidedApprovals approvals={approvals.decided} />
        )}
      </Card>
    </div>
  );
}
