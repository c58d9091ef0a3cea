"use client";
// A bulk action's progress and per-task outcome, live (GET /api/screens/dead-letters-bulk). While
// a money bulk action waits, its one count says what it counts and for whom ("120 waiting for
// your confirmation"); a second, different reviewer confirms or declines it (with a reason),
// the one who froze it (or an admin) may withdraw it; once it ended, who and why. `children`
// (the bulk's page: what it would do, the money) shows above the decision.
import Link from "next/link";
import { useRouter } from "next/navigation";
import { type ReactNode, useEffect, useRef, useState } from "react";
import { confirmBulkActionAction } from "../../lib/actions/bulk-confirm";
import { declineBulkActionAction } from "../../lib/actions/bulk-decline";
import { withdrawBulkActionAction } from "../../lib/actions/bulk-withdraw";
import { bulkCountLines, bulkTitle, tasksText } from "../../lib/domain/bulk-counts";
import type { BulkActionDto } from "../../lib/server/queries/get-bulk-action";
import { useLiveQuery } from "../live/use-live-query";
import {
  dangerButton,
  inputClass,
  primaryButton,
  ReviewDialog,
  ReviewFeedback,
  secondaryButton,
  useReview,
} from "../review/review-kit";
import { bulkHref } from "../tasks/bulk-href";
import { TaskLink } from "../tasks/task-link";
import { BULK_ACTION_LABEL } from "../ui/labels";
import { Table, Td, Th } from "../ui/table";
import { Timestamp } from "../ui/timestamp";

const OUTCOME_WORD = {
  done: "Done",
  waiting: "Waits for a second reviewer of its own",
  taken: "Taken by another reviewer",
  refused: "Refused",
  failed: "Failed",
  skipped: "Skipped",
} as const;

const ENDED_WORD = { withdrawn: "withdrawn", declined: "declined", stopped: "stopped" } as const;

function StatusLine({ bulk }: { bulk: BulkActionDto }) {
  const finished = bulk.memberCount - bulk.counts.pending;
  switch (bulk.status) {
    case "awaiting_second":
      return <span>waits for a second, different reviewer to confirm the whole set</span>;
    case "withdrawn":
    case "declined":
    case "stopped":
      return (
        <span data-testid="bulk-ended">
          {ENDED_WORD[bulk.status]}: {bulk.endReason ?? ""}
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

function DeclineForm({
  bulk,
  close,
  onDone,
}: {
  bulk: BulkActionDto;
  close: () => void;
  onDone: () => void;
}) {
  const review = useReview();
  const [reason, setReason] = useState("");
  const n = bulk.memberCount.toLocaleString("en-US");
  return (
    <form
      className="space-y-3"
      onSubmit={(e) => {
        e.preventDefault();
        review.run(
          declineBulkActionAction,
          { bulkId: bulk.id, reason },
          () => `Declined: none of the ${n} tasks will be acted on by this bulk action.`,
          () => {
            onDone();
            close();
          },
        );
      }}
    >
      <p className="text-sm text-slate-700">
        Nothing is done to the {n} tasks: they stay dead for another decision, and{" "}
        {bulk.requestedBy} reads your reason on this page and in the ledger.
      </p>
      <div>
        <label htmlFor={`decline-${bulk.id}`} className="block text-sm font-medium">
          Reason (required)
        </label>
        <textarea
          id={`decline-${bulk.id}`}
          className={inputClass}
          required
          maxLength={1000}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
        />
      </div>
      <ReviewFeedback feedback={review.feedback} />
      <div className="flex gap-2">
        <button
          type="submit"
          className={dangerButton}
          disabled={review.pending || reason.trim() === ""}
          data-testid="bulk-decline-confirm"
        >
          Decline these {n} tasks
        </button>
        <button type="button" className={secondaryButton} onClick={close}>
          Keep it waiting
        </button>
      </div>
    </form>
  );
}

export function BulkProgress({
  initial,
  me,
  linkToPage = true,
  children,
}: {
  initial: BulkActionDto;
  /** The signed-in reviewer as the ledger names them. */
  me: string;
  /** Offer a link to the bulk action's own page (not on that page). */
  linkToPage?: boolean;
  /** What the reviewer reads before deciding (the bulk's page: its preview and money). */
  children?: ReactNode;
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
  // The page around it (a bulk's list of still-dead tasks, the dead-letter list) is read on the
  // server: when the bulk moves on (confirmed, finished, ended), read it again.
  const router = useRouter();
  const seen = useRef(bulk.status);
  useEffect(() => {
    if (seen.current === bulk.status) return;
    seen.current = bulk.status;
    router.refresh();
  }, [bulk.status, router]);
  const waiting = bulk.status === "awaiting_second";
  const confirmable = waiting && bulk.mayConfirm;
  const withdrawable = waiting && bulk.mayWithdraw;
  const n = bulk.memberCount.toLocaleString("en-US");
  return (
    <section
      aria-label={bulkTitle(bulk.action, bulk.memberCount)}
      data-testid="bulk-progress"
      data-bulk-id={bulk.id}
      data-status={bulk.status}
      className="space-y-3 rounded-md border border-slate-200 bg-slate-50 p-3"
    >
      <p className="text-sm text-slate-800">
        <strong>
          {BULK_ACTION_LABEL[bulk.action]} {tasksText(bulk.memberCount)}
        </strong>{" "}
        · frozen by {bulk.requestedBy} <Timestamp iso={bulk.createdAt} />
        {bulk.confirmedBy ? (
          <>
            , confirmed by {bulk.confirmedBy}
            {bulk.confirmedAt ? (
              <>
                {" "}
                <Timestamp iso={bulk.confirmedAt} />
              </>
            ) : null}
          </>
        ) : null}{" "}
        · <StatusLine bulk={bulk} />
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
      <ul className="flex flex-wrap gap-x-4 gap-y-1 text-sm" aria-label="Counts">
        {bulkCountLines(bulk, { mayConfirm: bulk.mayConfirm, froze: bulk.requestedBy === me }).map(
          (line) => (
            <li
              key={line.key}
              data-testid={`bulk-count-${line.key}`}
              className={line.key === "awaiting" ? "font-medium text-amber-900" : undefined}
            >
              {line.text}
            </li>
          ),
        )}
      </ul>
      {children}
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
                    () => `Confirmed: the ${n} tasks are being acted on.`,
                    () => void live.refetch(),
                  )
                }
              >
                Confirm as second reviewer
              </button>
            ) : null}
            {confirmable ? (
              <ReviewDialog
                label="Decline…"
                title={`Decline the ${bulk.action} of ${tasksText(bulk.memberCount)}`}
                testId="bulk-decline"
              >
                {(close) => (
                  <DeclineForm bulk={bulk} close={close} onDone={() => void live.refetch()} />
                )}
              </ReviewDialog>
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
                    () => `Withdrawn: none of the ${n} tasks will be acted on by this bulk action.`,
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
