"use client";
// A bulk action's progress and per-task outcome, live (GET /api/screens/dead-letters-bulk). A
// money bulk action waiting for a second reviewer offers that reviewer the confirmation, and
// the one who froze it (or an admin) the withdrawal; a withdrawn or stopped one says who and why.
import Link from "next/link";
import { confirmBulkActionAction } from "../../lib/actions/bulk-confirm";
import { withdrawBulkActionAction } from "../../lib/actions/bulk-withdraw";
import type { BulkActionDto } from "../../lib/server/queries/get-bulk-action";
import { useLiveQuery } from "../live/use-live-query";
import { primaryButton, ReviewFeedback, secondaryButton, useReview } from "../review/review-kit";
import { bulkHref } from "../tasks/bulk-href";
import { TaskLink } from "../tasks/task-link";
import { Table, Td, Th } from "../ui/table";

const ACTION_WORD: Record<BulkActionDto["action"], string> = {
  resume: "Resume",
  reject: "Reject",
  replay: "Replay",
  cancel: "Cancel",
};

const OUTCOME_WORD = {
  done: "Done",
  waiting: "Waits for a second reviewer",
  taken: "Taken by another reviewer",
  refused: "Refused",
  failed: "Failed",
  skipped: "Skipped",
} as const;

function StatusLine({ bulk }: { bulk: BulkActionDto }) {
  const finished = bulk.memberCount - bulk.counts.pending;
  switch (bulk.status) {
    case "awaiting_second":
      return <span>waits for a second, different reviewer to confirm the whole set</span>;
    case "withdrawn":
    case "stopped":
      return (
        <span data-testid="bulk-ended">
          {bulk.status === "withdrawn" ? "withdrawn" : "stopped"}: {bulk.endReason ?? ""}
        </span>
      );
    default:
      return (
        <span data-testid="bulk-finished">
          {finished.toLocaleString("en-US")} of {bulk.memberCount.toLocaleString("en-US")} have an
          outcome
        </span>
      );
  }
}

export function BulkProgress({
  initial,
  me,
  canConfirm,
  linkToPage = true,
}: {
  initial: BulkActionDto;
  /** The signed-in reviewer as the ledger names them. */
  me: string;
  canConfirm: boolean;
  /** Offer a link to the bulk action's own page (not on that page). */
  linkToPage?: boolean;
}) {
  const live = useLiveQuery<BulkActionDto>({
    screen: "dead-letters-bulk",
    params: { id: initial.id },
    initialData: initial,
    intervalMs:
      initial.status === "running" || initial.status === "awaiting_second" ? 1_000 : 30_000,
  });
  const bulk = live.data;
  const review = useReview();
  const confirmable = bulk.status === "awaiting_second" && canConfirm && bulk.requestedBy !== me;
  const withdrawable = bulk.status === "awaiting_second" && bulk.mayWithdraw;
  return (
    <section
      aria-label={`Bulk ${bulk.action} of ${bulk.memberCount} tasks`}
      data-testid="bulk-progress"
      data-bulk-id={bulk.id}
      data-status={bulk.status}
      className="space-y-3 rounded-md border border-slate-200 bg-slate-50 p-3"
    >
      <p className="text-sm text-slate-800">
        <strong>
          {ACTION_WORD[bulk.action]} {bulk.memberCount.toLocaleString("en-US")} tasks
        </strong>{" "}
        · frozen by {bulk.requestedBy}
        {bulk.confirmedBy ? `, confirmed by ${bulk.confirmedBy}` : ""} · <StatusLine bulk={bulk} />
        {linkToPage ? (
          <>
            {" "}
            ·{" "}
            <Link
              href={bulkHref(bulk.id)}
              className="font-medium text-sky-800 underline-offset-2 hover:underline"
            >
              Open this bulk action
            </Link>
          </>
        ) : null}
      </p>
      <ul className="flex flex-wrap gap-3 text-sm" aria-label="Outcomes">
        {(Object.keys(OUTCOME_WORD) as (keyof typeof OUTCOME_WORD)[]).map((o) => (
          <li key={o} data-testid={`bulk-count-${o}`}>
            {OUTCOME_WORD[o]}: {bulk.counts[o].toLocaleString("en-US")}
          </li>
        ))}
      </ul>
      {confirmable || withdrawable ? (
        <div>
          <div className="flex flex-wrap gap-2">
            {confirmable ? (
              <button
                type="button"
                className={primaryButton}
                disabled={review.pending}
                onClick={() =>
                  review.run(
                    confirmBulkActionAction,
                    { bulkId: bulk.id },
                    () => `Confirmed: the ${bulk.memberCount} tasks are being acted on.`,
                    () => void live.refetch(),
                  )
                }
              >
                Confirm as second reviewer
              </button>
            ) : null}
            {withdrawable ? (
              <button
                type="button"
                className={secondaryButton}
                disabled={review.pending}
                data-testid="bulk-withdraw"
                onClick={() =>
                  review.run(
                    withdrawBulkActionAction,
                    { bulkId: bulk.id },
                    () =>
                      `Withdrawn: none of the ${bulk.memberCount} tasks will be acted on by this bulk action.`,
                    () => void live.refetch(),
                  )
                }
              >
                Withdraw this bulk action
              </button>
            ) : null}
          </div>
          <ReviewFeedback feedback={review.feedback} />
        </div>
      ) : review.feedback ? (
        <ReviewFeedback feedback={review.feedback} />
      ) : null}
      {bulk.status !== "awaiting_second" ? (
        <details>
          <summary className="cursor-pointer text-sm font-medium text-sky-800">
            Outcome per task
          </summary>
          <Table caption="Outcome of each task in this bulk action">
            <thead>
              <tr>
                <Th>Task</Th>
                <Th>Outcome</Th>
                <Th>Detail</Th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {bulk.members.map((m) => (
                <tr key={m.taskId} data-task-id={m.taskId} data-outcome={m.outcome ?? "pending"}>
                  <Td>
                    <TaskLink id={m.taskId} />
                  </Td>
                  <Td>{m.outcome ? OUTCOME_WORD[m.outcome] : "Pending"}</Td>
                  <Td>
                    <span className="break-words text-slate-700">{m.detail ?? ""}</span>
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
        </details>
      ) : null}
    </section>
  );
}
