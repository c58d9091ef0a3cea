"use client";
// "Check with the provider", inside the resolve-outcome form: asks a worker running the agent to
// run the tool's reconcile (the web app never runs provider code) and shows its answer when the
// live task page brings it. The answer decides nothing: the reviewer still records the outcome.
import { requestReconcileAction } from "../../lib/actions/request-reconcile";
import type { ReconcileCheck } from "../../lib/server/review/reconcile";
import { Timestamp } from "../ui/timestamp";
import { ReviewFeedback, secondaryButton, useReview } from "./review-kit";

export type ProviderCheckProps = {
  taskId: string;
  effectKey: string;
  tool: string;
  /** The tool has a reconcile (as the workers' catalog says). */
  reconcilable: boolean;
  /** A worker has published the task's agent at all. */
  catalogKnown: boolean;
  check: ReconcileCheck | null;
};

export function ProviderCheck({
  taskId,
  effectKey,
  tool,
  reconcilable,
  catalogKnown,
  check,
}: ProviderCheckProps) {
  const { feedback, pending, run } = useReview();
  if (!reconcilable) {
    return (
      <p className="text-sm text-slate-700" data-testid="provider-check-absent">
        {catalogKnown
          ? `${tool} has no way to ask its provider (no reconcile in its code), so there is no "Check with the provider" here: look it up with the values above.`
          : `No worker has published this task's agent yet, so ${tool} cannot be checked from here: look it up with the values above.`}
      </p>
    );
  }
  const waiting = check?.status === "pending";
  return (
    <div
      className="space-y-2 rounded-md border border-slate-200 px-3 py-2"
      data-testid="provider-check"
    >
      <div className="flex flex-wrap items-center gap-2">
        <button
          type="button"
          className={secondaryButton}
          disabled={pending || waiting}
          aria-describedby={`${effectKey}-check-status`}
          onClick={() =>
            run(
              requestReconcileAction,
              { taskId, key: effectKey },
              () => "Asked: a worker is checking with the provider.",
            )
          }
        >
          {pending || waiting
            ? "Checking with the provider…"
            : check
              ? "Check with the provider again"
              : "Check with the provider"}
        </button>
      </div>
      <div id={`${effectKey}-check-status`} role="status" className="text-sm text-slate-800">
        <CheckStatus check={check} tool={tool} />
      </div>
      {feedback && !feedback.ok ? <ReviewFeedback feedback={feedback} /> : null}
    </div>
  );
}

function CheckStatus({ check, tool }: { check: ReconcileCheck | null; tool: string }) {
  if (!check) {
    return <p>A worker can ask the provider whether {tool} happened, with this key.</p>;
  }
  const asked = (
    <>
      asked by {check.requestedBy} at <Timestamp iso={check.requestedAt} />
    </>
  );
  if (check.status === "pending") {
    return (
      <p data-testid="provider-check-pending">
        Waiting for a worker to ask the provider ({asked}). The answer appears here by itself.
      </p>
    );
  }
  const answer = check.answer;
  const when = check.answeredAt ? <Timestamp iso={check.answeredAt} /> : null;
  if (!answer || "error" in answer) {
    return (
      <p data-testid="provider-check-answer">
        <span className="font-medium">The provider could not be asked</span>
        {answer ? `: ${answer.error}` : ""} ({asked}; at {when}). Try again, or check by hand.
      </p>
    );
  }
  if (!answer.happened) {
    return (
      <p data-testid="provider-check-answer">
        <span className="font-medium">The provider says it did not happen</span>: it has no record
        of this key ({asked}; answered at {when}). "It did not happen" is selected below.
      </p>
    );
  }
  return (
    <div data-testid="provider-check-answer" className="space-y-1">
      <p>
        <span className="font-medium">The provider says it happened</span> ({asked}; answered at{" "}
        {when}). "It happened" is selected below with the provider's result.
      </p>
      <pre className="max-h-40 overflow-auto rounded bg-slate-50 p-2 font-mono text-xs break-all whitespace-pre-wrap">
        {JSON.stringify(answer.result, null, 2)}
      </pre>
    </div>
  );
}
