"use client";
// The task screen's review actions, as the server's allowedActions says this viewer may take
// them in the task's state (the command decides again under its lock): approve or reject a
// parked task; resume, replay, correct the input of or reject a dead one; resolve an unknown
// outcome; cancel
// (admins). Every action carries the version the page rendered, so a stale screen is told who
// changed the task instead of acting on it.
import { awaitsReview } from "../../lib/domain/task-actions";
import type { TaskStatus } from "../../lib/domain/task-states";
import type { ReviewStateDto } from "../../lib/server/queries/get-review-state";
import { ReviewAnnouncer } from "./announcer";
import { ApprovalActions, RejectForm } from "./approval-actions";
import { CorrectInputForm } from "./correct-input-form";
import { ReplayForm } from "./replay-form";
import { dangerButton, primaryButton, ReviewDialog } from "./review-kit";
import type { JournalStep } from "./step-select";
import { CancelForm, PendingRequest, ResolveForm, ResumeForm } from "./task-forms";

export type TaskReviewPanelProps = {
  task: { id: string; status: TaskStatus; version: number };
  state: ReviewStateDto;
  /** The viewer as the ledger names them ("user:<email>"). */
  actor: string;
  /** The parked effect waiting for a yes, when there is one. */
  pendingTool: string | null;
  unknownEffects: {
    key: string;
    tool: string;
    stepSeq: number;
    refs: { label: string; value: string }[];
  }[];
  /** The task's input now, for a correction to start from. */
  input: unknown;
  steps: JournalStep[];
  /** Children (ctx.spawn) not yet succeeded, rejected or cancelled: cancelling leaves them be. */
  openChildren?: number;
};

/** What ending a parent does to its children: nothing, and the reviewer reads that first. */
export function childrenNote(open: number): string | null {
  if (open === 0) return null;
  return open === 1
    ? "Its 1 unfinished child task goes on as it is: cancel or reject it on its own page."
    : `Its ${open} unfinished child tasks go on as they are: cancel or reject each on its own page.`;
}

export function TaskReviewPanel(props: TaskReviewPanelProps) {
  return (
    <ReviewAnnouncer>
      <Controls {...props} />
    </ReviewAnnouncer>
  );
}

function Controls({
  task,
  state,
  actor,
  pendingTool,
  unknownEffects,
  input,
  steps,
  openChildren = 0,
}: TaskReviewPanelProps) {
  const target = { taskId: task.id, version: task.version };
  const money = state.moneyApprovals[0];
  const { resume, replay } = state;
  const may = (action: keyof ReviewStateDto["allowed"]) => state.allowed[action].allowed;
  const resolvable = may("resolve") && unknownEffects.length > 0;
  const any =
    may("approve") ||
    may("resume") ||
    may("reject") ||
    may("replay") ||
    may("correct") ||
    resolvable ||
    may("cancel") ||
    state.pending !== null;
  if (!any) {
    return (
      <p className="text-sm text-slate-600" data-testid="review-none">
        {awaitsReview(task.status)
          ? "Your role cannot act on this task; a reviewer can."
          : "Nothing to review: the task is not waiting for a person."}
      </p>
    );
  }
  return (
    <div className="space-y-4" data-testid="review-actions">
      {state.pending ? (
        <PendingRequest
          target={target}
          request={state.pending}
          actor={actor}
          mayReview={may("withdraw")}
        />
      ) : null}

      {may("approve") ? (
        <ApprovalActions
          actor={actor}
          target={{
            ...target,
            tool: pendingTool ?? money?.tool ?? "the gated effect",
            money: money !== undefined,
            firstApprovedBy: money?.firstApprovedBy ?? null,
            firstApprovedAt: money?.firstApprovedAt ?? null,
          }}
        />
      ) : null}

      {may("resume") || (may("reject") && task.status === "dead") ? (
        <div className="flex flex-wrap gap-2">
          {may("resume") && resume ? (
            <ReviewDialog
              label="Resume…"
              title="Resume the dead task"
              buttonClass={primaryButton}
              testId="resume-open"
              shortcut="a"
            >
              {(close) => <ResumeForm target={target} preview={resume} close={close} />}
            </ReviewDialog>
          ) : null}
          {may("reject") ? (
            <ReviewDialog
              label="Reject…"
              title="Reject the dead task"
              testId="reject-dead-open"
              shortcut="r"
            >
              {(close) => (
                <RejectForm target={target} close={close} note={childrenNote(openChildren)} />
              )}
            </ReviewDialog>
          ) : null}
        </div>
      ) : null}

      {(may("replay") && replay) || may("correct") ? (
        <div className="flex flex-wrap gap-2">
          {may("replay") && replay ? (
            <ReviewDialog
              label="Replay from step…"
              title="Replay from a step"
              testId="replay-open"
              shortcut="p"
            >
              {(close) => (
                <ReplayForm
                  taskId={task.id}
                  version={task.version}
                  lastStep={state.lastStep}
                  steps={steps}
                  initial={replay}
                  close={close}
                />
              )}
            </ReviewDialog>
          ) : null}
          {may("correct") ? (
            <ReviewDialog
              label="Fix the input and replay…"
              title="Fix the input and replay"
              testId="correct-open"
            >
              {(close) => (
                <CorrectInputForm
                  taskId={task.id}
                  version={task.version}
                  input={input}
                  steps={steps}
                  lastStep={state.lastStep}
                  close={close}
                />
              )}
            </ReviewDialog>
          ) : null}
        </div>
      ) : null}

      {resolvable ? (
        <ul className="space-y-2">
          {unknownEffects.map((e) => (
            <li key={e.key} className="flex flex-wrap items-center gap-2 text-sm">
              <ReviewDialog
                label={`Resolve the outcome of ${e.tool}…`}
                title={`Did ${e.tool} happen?`}
                testId="resolve-open"
              >
                {(close) => (
                  <ResolveForm
                    target={target}
                    effect={e}
                    provider={{
                      reconcilable: state.reconcile.tools.includes(e.tool),
                      catalogKnown: state.reconcile.known,
                      check: state.reconcile.checks[e.key] ?? null,
                    }}
                    close={close}
                  />
                )}
              </ReviewDialog>
              <span className="text-slate-600">step {e.stepSeq}: outcome unknown</span>
            </li>
          ))}
        </ul>
      ) : null}

      {may("cancel") ? (
        <div>
          <ReviewDialog
            label="Cancel task…"
            title="Cancel the task"
            buttonClass={dangerButton}
            testId="cancel-open"
          >
            {(close) => (
              <CancelForm target={target} close={close} note={childrenNote(openChildren)} />
            )}
          </ReviewDialog>
        </div>
      ) : null}
    </div>
  );
}
