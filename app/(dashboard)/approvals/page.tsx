import type { Metadata } from "next";
import { DecidedApprovals } from "../../../components/approvals/decided-approvals";
import { PendingApproval } from "../../../components/approvals/pending-approval";
import { ReviewAnnouncer } from "../../../components/review/announcer";
import { ApprovalActions } from "../../../components/review/approval-actions";
import { Card } from "../../../components/ui/card";
import { Duration } from "../../../components/ui/duration";
import { EmptyState } from "../../../components/ui/empty-state";
import { PageHeader } from "../../../components/ui/page-header";
import { Stat } from "../../../components/ui/stat";
import { Timestamp } from "../../../components/ui/timestamp";
import { pageViewer } from "../../../lib/auth/page";
import { actorOf, can } from "../../../lib/domain/access";
import { getDb, getPool } from "../../../lib/server/db";
import { readApprovalReviews } from "../../../lib/server/queries/get-review-state";
import { DECIDED_APPROVALS_LIMIT, listApprovals } from "../../../lib/server/queries/list-approvals";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Approvals" };

export default async function ApprovalsPage() {
  const viewer = await pageViewer("tasks:read");
  const approvals = await listApprovals(getDb(), viewer);
  const oldest = approvals.pending[0];
  const reviews = await readApprovalReviews(
    getPool(),
    viewer,
    approvals.pending.map((a) => a.taskId),
  );
  // The scope alone, for the sentence: whether a given request can be decided now is the
  // task's allowedActions.
  const decides = can(viewer, "approvals:decide");

  return (
    <>
      <PageHeader
        title="Approvals"
        description="Side effects that need a person's yes before they act, such as refunds above a threshold. Each request shows the exact arguments an approval would be bound to."
        aside={
          <>
            As of <Timestamp iso={approvals.asOf} />
          </>
        }
      />
      <div className="space-y-6">
        <p className="rounded-md border border-slate-200 bg-white px-4 py-3 text-sm text-slate-700 shadow-xs">
          Every decision is recorded in the ledger with the reviewer's name. Effects that move money
          need two different reviewers: the first approval is recorded and the request waits for a
          second.
          {decides ? null : " Your role can read these requests; a reviewer decides them."}
        </p>

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
                When an agent reaches a tool that needs a person's yes (a refund above the
                threshold, say), its task pauses and the request appears here with the exact
                arguments, their fingerprint and how long it has waited.
              </EmptyState>
            ) : (
              <ol className="space-y-4">
                {approvals.pending.map((a) => {
                  const review = reviews[a.taskId];
                  return (
                    <li key={a.id}>
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
                            actor={actorOf(viewer)}
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
          description={`The latest ${DECIDED_APPROVALS_LIMIT} decisions, newest first.`}
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
    </>
  );
}
