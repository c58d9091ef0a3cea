"use client";
// Approve or reject a parked task, on the task screen and per row of the approvals list. A money
// approval takes two different reviewers: the first yes is recorded and shown; the person who
// gave it cannot give the second.
import { type ReactNode, useId } from "react";
import { approveTaskAction, rejectTaskAction } from "../../lib/actions/review";
import type { ActionResult } from "../../lib/auth/guard";
import { Timestamp } from "../ui/timestamp";
import {
  dangerButton,
  FormFoot,
  fieldsOf,
  NoteField,
  primaryButton,
  ReviewDialog,
  TextField,
  useDialogReview,
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

/**
 * A decision with one text field (approve's optional note, reject's required reason): what it
 * does, the field, the outcome, confirm and Cancel. The decision is made on the version shown.
 */
function DecisionForm<T>({
  target,
  close,
  action,
  field,
  explain,
  success,
  submit,
}: {
  target: { taskId: string; version: number };
  close: () => void;
  action: (input: {
    taskId: string;
    version: number;
    note?: string;
    reason?: string;
  }) => Promise<ActionResult<T>>;
  field: "note" | "reason";
  explain: ReactNode;
  success: (value: T) => string;
  submit: { label: string; working: string; className: string };
}) {
  const { feedback, pending, run } = useDialogReview(close);
  const id = useId();
  const error = fieldsOf(feedback)[field];
  return (
    <form
      className="space-y-3"
      onSubmit={(event) => {
        event.preventDefault();
        const text = String(new FormData(event.currentTarget).get(field) ?? "");
        run(action, { taskId: target.taskId, version: target.version, [field]: text }, success);
      }}
    >
      <p className="text-sm text-slate-700">{explain}</p>
      {field === "note" ? (
        <NoteField id={id} error={error} />
      ) : (
        <TextField id={id} name="reason" label="Reason" rows={3} required error={error} />
      )}
      <FormFoot
        feedback={feedback}
        shownFields={[field]}
        pending={pending}
        close={close}
        submitClass={submit.className}
      >
        {pending ? submit.working : submit.label}
      </FormFoot>
    </form>
  );
}

function ApproveForm({ target, close }: { target: ApprovalTarget; close: () => void }) {
  return (
    <DecisionForm
      target={target}
      close={close}
      action={approveTaskAction}
      field="note"
      explain="The approval is bound to the effect's key and the fingerprint of its exact arguments; it authorizes them once."
      success={(v) =>
        v.waitingFor
          ? `Your approval of ${target.tool} is recorded. It moves money, so a second, different reviewer must approve before it acts.`
          : `Approved: ${target.tool} may act with exactly the arguments shown. The task is queued (version ${v.version}).`
      }
      submit={{ label: "Approve", working: "Approving…", className: primaryButton }}
    />
  );
}

export function RejectForm({
  target,
  close,
  note = null,
}: {
  target: { taskId: string; version: number };
  close: () => void;
  /** What rejecting does not do (its children go on), when there is something to say. */
  note?: string | null;
}) {
  return (
    <DecisionForm
      target={target}
      close={close}
      action={rejectTaskAction}
      field="reason"
      explain={`The task ends as rejected with your reason. Nothing more is done for it.${note ? ` ${note}` : ""}`}
      success={() => "Rejected. The task ends here and nothing more is done for it."}
      submit={{ label: "Reject the task", working: "Rejecting…", className: dangerButton }}
    />
  );
}
