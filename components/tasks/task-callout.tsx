// One sentence on where the task stands and what a person might do about it, above the detail.
import type { ReactNode } from "react";
import type {
  TaskApprovalDto,
  TaskDetailDto,
  TaskHeaderDto,
} from "../../lib/server/queries/get-task-detail";
import { DEAD_REASON_HINT, DEAD_REASON_LABEL } from "../ui/labels";
import { Timestamp } from "../ui/timestamp";
import { bulkHref } from "./bulk-href";

type Look = "bad" | "warn" | "info" | "good";

const LOOK: Record<Look, string> = {
  bad: "border-rose-300 bg-rose-50 text-rose-950",
  warn: "border-amber-300 bg-amber-50 text-amber-950",
  info: "border-sky-300 bg-sky-50 text-sky-950",
  good: "border-emerald-300 bg-emerald-50 text-emerald-950",
};

function Callout({ look, title, children }: { look: Look; title: string; children?: ReactNode }) {
  return (
    <div data-testid="task-callout" className={`rounded-md border px-4 py-3 ${LOOK[look]}`}>
      <p className="font-medium">{title}</p>
      {children ? <div className="mt-1 space-y-1 text-sm">{children}</div> : null}
    </div>
  );
}

function ErrorLine({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <p className="line-clamp-4 font-mono text-xs break-words whitespace-pre-wrap">{message}</p>
  );
}

export function TaskCallout({
  task,
  pendingApproval,
  rejection = null,
  joining = null,
}: {
  task: TaskHeaderDto;
  pendingApproval: TaskApprovalDto | undefined;
  /** Who rejected the task and why, from its review.rejected entry. */
  rejection?: TaskDetailDto["rejection"];
  /** A waiting task parked in ctx.join: how many of its children have not ended yet. */
  joining?: number | null;
}) {
  switch (task.status) {
    case "dead":
      return (
        <Callout
          look="bad"
          title={`Dead: ${task.deadReason ? DEAD_REASON_LABEL[task.deadReason] : "no reason recorded"}`}
        >
          {task.deadReason ? <p>{DEAD_REASON_HINT[task.deadReason]}</p> : null}
          <ErrorLine message={task.lastErrorMessage} />
          <p>
            It waits for a reviewer, who can approve it (resume from the first step not completed),
            replay it from a chosen step, fix its input and replay it, or reject it: see Review
            below.
          </p>
        </Callout>
      );
    case "awaiting_approval":
      return (
        <Callout look="warn" title="Waiting for a person's approval">
          <p>
            {pendingApproval
              ? `The ${pendingApproval.tool} effect needs a yes for exactly the arguments below before it acts.`
              : "A gated effect needs a yes before it acts."}{" "}
            Nothing has been done for it yet.
          </p>
        </Callout>
      );
    case "waiting":
      if (joining !== null) {
        return (
          <Callout look="info" title="Waiting for its children">
            <p>
              It holds no worker and spends no attempt while{" "}
              {joining === 1 ? "1 child" : `${joining} children`} it joined{" "}
              {joining === 1 ? "has" : "have"} not ended (see Child tasks below); the last to
              succeed, be rejected or be cancelled wakes it. A dead child holds it until a reviewer
              decides.
            </p>
          </Callout>
        );
      }
      return (
        <Callout look="info" title="Waiting for an event">
          <p>
            It holds no worker and spends no attempt while it waits; an event that matches wakes it
            (see Events below)
            {task.runAt.startsWith("9999") ? (
              ""
            ) : (
              <>
                , and at <Timestamp iso={task.runAt} /> the wait times out
              </>
            )}
            .
          </p>
        </Callout>
      );
    case "running":
      return (
        <Callout look="info" title="Running now">
          <p>
            Attempt {task.attempts}
            {task.leaseOwner ? ` on ${task.leaseOwner}` : ""}
            {task.leaseExpiresAt ? (
              <>
                , lease until <Timestamp iso={task.leaseExpiresAt} />
              </>
            ) : null}
            . If the worker stops renewing its lease, the task returns to the queue.
          </p>
        </Callout>
      );
    case "retry_wait":
      return (
        <Callout look="warn" title="Waiting to retry">
          <p>
            Attempt {task.attempts} failed; the next starts at <Timestamp iso={task.runAt} />.
          </p>
          <ErrorLine message={task.lastErrorMessage} />
        </Callout>
      );
    case "queued":
      return (
        <Callout look="info" title="Queued">
          <p>
            A worker claims it from <Timestamp iso={task.runAt} />.
          </p>
        </Callout>
      );
    case "succeeded":
      return (
        <Callout look="good" title="Succeeded">
          <p>
            Finished after {task.attempts} {task.attempts === 1 ? "attempt" : "attempts"} at{" "}
            <Timestamp iso={task.statusChangedAt} />.
          </p>
        </Callout>
      );
    case "rejected":
      return (
        <Callout
          look="info"
          title={rejection ? `Rejected by ${rejection.by}` : "Rejected by a reviewer"}
        >
          {rejection ? (
            <>
              <p data-testid="rejection-reason">
                <span className="font-medium">Why:</span> {rejection.reason}
              </p>
              <p>
                At <Timestamp iso={rejection.at} />
                {rejection.from ? `, when it was ${rejection.from.replace("_", " ")}` : ""}. Nothing
                more is done for this task.
              </p>
              {rejection.bulkId ? (
                <p data-testid="rejection-bulk">
                  Part of{" "}
                  <a href={bulkHref(rejection.bulkId)} className="font-medium underline">
                    bulk action {rejection.bulkId.slice(0, 8)}
                  </a>
                  .
                </p>
              ) : null}
            </>
          ) : (
            <p>Nothing more is done for this task. The ledger below records who and why.</p>
          )}
        </Callout>
      );
    case "cancelled":
      return (
        <Callout look="info" title="Cancelled">
          <p>Nothing more is done for this task. The ledger below records who cancelled it.</p>
        </Callout>
      );
  }
}
