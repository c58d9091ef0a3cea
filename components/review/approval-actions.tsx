"use client";
// Approve or reject a parked task, on the task screen and per row of the approvals list. A money
// approval takes two different reviewers: the first yes is recorded and shown; the person who
// gave it cannot give the second.
import { useId } from "react";
import { approveTaskAction, rejectTaskAction } from "../../lib/actions/review";
import { Timestamp } from "../ui/timestamp";
import { useAnnounce } from "./announcer";
import {
  dangerButton,
  FieldError,
  FormFoot,
  fieldsOf,
  inputClass,
  NoteField,
  primaryButton,
  ReviewDialog,
  useReview,
} from "./review-kit";

export type ApprovalTarget = {
  taskId: string;
  /** The task version this screen shows; the decision is made on it. */
  version: number;
  tool: string;
  money: boolean;
  firstApprovedBy: string | null;
  firstApprovedAt: string | null;
};

export function ApprovalActions({
  target,
  actor,
}: {
  target: ApprovalTarget;
  /** The viewer as the ledger names them ("user:<email>"). */
  actor: string;
}) {
  const mine = target.firstApprovedBy === actor;
  return (
    <div className="space-y-2">
      {target.money ? (
        <p className="text-sm text-slate-700" data-testid="money-approval">
          {target.firstApprovedBy ? (
            <>
              <span className="font-medium text-slate-900">First approval:</span>{" "}
              {target.firstApprovedBy}
              {target.firstApprovedAt ? (
                <>
                  {" "}
                  at <Timestamp iso={target.firstApprovedAt} />
                </>
              ) : null}
              .{" "}
              {mine
                ? "A second, different reviewer must approve."
                : "Your approval would be the second, and the effect may then act."}
            </>
          ) : (
            <>
              <span className="font-medium text-slate-900">{target.tool} moves money:</span> two
              different reviewers must approve.
            </>
          )}
        </p>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <ReviewDialog
          label={target.money && !target.firstApprovedBy ? "Approve (first of two)" : "Approve"}
          title={`Approve ${target.tool}`}
          buttonClass={primaryButton}
          disabled={mine}
          testId="approve-open"
          shortcut="a"
        >
          {(close) => <ApproveForm target={target} close={close} />}
        </ReviewDialog>
        <ReviewDialog
          label="Reject"
          title={`Reject ${target.tool}`}
          testId="reject-open"
          shortcut="r"
        >
          {(close) => <RejectForm target={target} close={close} />}
        </ReviewDialog>
      </div>
      {mine ? (
        <p className="text-xs text-slate-600">
          You gave the first approval; someone else must give the second.
        </p>
      ) : null}
    </div>
  );
}

function ApproveForm({ target, close }: { target: ApprovalTarget; close: () => void }) {
  const { feedback, pending, run } = useReview();
  const announce = useAnnounce();
  const noteId = useId();
  const fields = fieldsOf(feedback);
  return (
    <form
      className="space-y-3"
      onSubmit={(event) => {
        event.preventDefault();
        const note = String(new FormData(event.currentTarget).get("note") ?? "");
        run(
          approveTaskAction,
          { taskId: target.taskId, version: target.version, note },
          (v) =>
            v.waitingFor
              ? `Your approval of ${target.tool} is recorded. It moves money, so a second, different reviewer must approve before it acts.`
              : `Approved: ${target.tool} may act with exactly the arguments shown. The task is queued (version ${v.version}).`,
          (_, message) => {
            close();
            announce(message);
          },
        );
      }}
    >
      <p className="text-sm text-slate-700">
        The approval is bound to the effect's key and the fingerprint of its exact arguments; it
        authorizes them once.
      </p>
      <NoteField id={noteId} error={fields.note} />
      <FormFoot feedback={feedback} shownFields={["note"]} pending={pending} close={close}>
        {pending ? "Approving…" : "Approve"}
      </FormFoot>
    </form>
  );
}

export function RejectForm({
  target,
  close,
}: {
  target: { taskId: string; version: number };
  close: () => void;
}) {
  const { feedback, pending, run } = useReview();
  const announce = useAnnounce();
  const reasonId = useId();
  const fields = fieldsOf(feedback);
  return (
    <form
      className="space-y-3"
      onSubmit={(event) => {
        event.preventDefault();
        const reason = String(new FormData(event.currentTarget).get("reason") ?? "");
        run(
          rejectTaskAction,
          { taskId: target.taskId, version: target.version, reason },
          () => "Rejected. The task ends here and nothing more is done for it.",
          (_, message) => {
            close();
            announce(message);
          },
        );
      }}
    >
      <p className="text-sm text-slate-700">
        The task ends as rejected with your reason. Nothing more is done for it.
      </p>
      <div>
        <label htmlFor={reasonId} className="block text-sm font-medium text-slate-800">
          Reason
        </label>
        <textarea
          id={reasonId}
          name="reason"
          rows={3}
          required
          maxLength={1000}
          className={inputClass}
          aria-invalid={fields.reason ? true : undefined}
          aria-describedby={fields.reason ? `${reasonId}-error` : undefined}
        />
        <FieldError id={`${reasonId}-error`} message={fields.reason} />
      </div>
      <FormFoot
        feedback={feedback}
        shownFields={["reason"]}
        pending={pending}
        close={close}
        submitClass={dangerButton}
      >
        {pending ? "Rejecting…" : "Reject the task"}
      </FormFoot>
    </form>
  );
}
