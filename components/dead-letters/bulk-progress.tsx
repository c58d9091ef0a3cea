"use client";
// A bulk action's progress and per-task outcome, live (GET /api/screens/dead-letters-bulk). A
// money bulk action waiting for a second reviewer offers that reviewer the confirmation.
import { confirmBulkActionAction } from "../../lib/actions/bulk-confirm";
import type { BulkActionDto } from "../../lib/server/queries/get-bulk-action";
import { useLiveQuery } from "../live/use-live-query";
import { primaryButton, ReviewFeedback, useReview } from "../review/review-kit";
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
} as const;

export function BulkProgress({
  initial,
  me,
  canConfirm,
}: {
  initial: BulkActionDto;
  /** The signed-in reviewer as the ledger names them. */
  me: string;
  canConfirm: boolean;
}) {
  const live = useLiveQuery<BulkActionDto>({
    screen: "dead-letters-bulk",
    params: { id: initial.id },
    initialData: initial,
    intervalMs: initial.status === "done" ? 30_000 : 1_000,
  });
  const bulk = live.data;
  const review = useReview();
  const finished = bulk.memberCount - bulk.counts.pending;
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
        {bulk.confirmedBy ? `, confirmed by ${bulk.confirmedBy}` : ""} ·{" "}
        {bulk.status === "awaiting_second" ? (
          <span>waits for a second, different reviewer to confirm the whole set</span>
        ) : (
          <span data-testid="bulk-finished">
            {finished.toLocaleString("en-US")} of {bulk.memberCount.toLocaleString("en-US")} have an
            outcome
          </span>
        )}
      </p>
      <ul className="flex flex-wrap gap-3 text-sm" aria-label="Outcomes">
        {(Object.keys(OUTCOME_WORD) as (keyof typeof OUTCOME_WORD)[]).map((o) => (
          <li key={o} data-testid={`bulk-count-${o}`}>
            {OUTCOME_WORD[o]}: {bulk.counts[o].toLocaleString("en-US")}
          </li>
        ))}
      </ul>
      {bulk.status === "awaiting_second" && canConfirm && bulk.requestedBy !== me ? (
        <div>
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
          <ReviewFeedback feedback={review.feedback} />
        </div>
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
