"use client";
// The task screen's other review forms: resume a dead task, resolve an unknown outcome, cancel
// (admins), and confirm or withdraw a request waiting for a second reviewer.
import { useId, useState } from "react";
import { correctInputAction } from "../../lib/actions/correct-input";
import {
  cancelTaskAction,
  replayTaskAction,
  resolveOutcomeAction,
  resumeTaskAction,
  withdrawReviewRequestAction,
} from "../../lib/actions/review";
import type { ReviewPreview } from "../../lib/domain/replay-plan";
import type { ReviewStateDto } from "../../lib/server/queries/get-review-state";
import { DiffTable } from "../tasks/diff-table";
import { Timestamp } from "../ui/timestamp";
import { CopyValue } from "./copy-value";
import { ProviderCheck, type ProviderCheckProps } from "./provider-check";
import {
  dangerButton,
  Field,
  FieldError,
  FormFoot,
  fieldsOf,
  inputClass,
  NoteField,
  primaryButton,
  ReviewFeedback,
  secondaryButton,
  TextField,
  useDialogReview,
} from "./review-kit";
import { ReviewPreviewList } from "./review-preview-list";

type Target = { taskId: string; version: number };

export function ResumeForm({
  target,
  preview,
  close,
}: {
  target: Target;
  preview: ReviewPreview;
  close: () => void;
}) {
  // The version the dialog opened on: a live refresh must not move it under the reviewer.
  const [frozen] = useState(target);
  const { feedback, pending, run } = useDialogReview(close);
  const noteId = useId();
  return (
    <form
      className="space-y-4"
      onSubmit={(event) => {
        event.preventDefault();
        const note = String(new FormData(event.currentTarget).get("note") ?? "");
        run(resumeTaskAction, { ...frozen, note }, (v) =>
          v.waitingFor
            ? "Resume requested. It can reach money, so a second, different reviewer must confirm it before anything runs."
            : `Resumed: the task is queued with a fresh attempt budget (version ${v.version}).`,
        );
      }}
    >
      <p className="text-sm text-slate-700">
        The task resumes from step {preview.fromStep} (its completed steps return their journaled
        results) with a fresh attempt budget.
      </p>
      <ReviewPreviewList preview={preview} />
      <NoteField id={noteId} error={fieldsOf(feedback).note} />
      <FormFoot feedback={feedback} shownFields={["note"]} pending={pending} close={close}>
        {pending
          ? "Working…"
          : preview.twoPerson
            ? "Request resume (second reviewer confirms)"
            : "Resume the task"}
      </FormFoot>
    </form>
  );
}

export function ResolveForm({
  target,
  effect,
  provider,
  close,
}: {
  target: Target;
  effect: { key: string; tool: string; stepSeq: number; refs: { label: string; value: string }[] };
  /** What "check with the provider" can do for this effect, and its latest answer. */
  provider: Pick<ProviderCheckProps, "reconcilable" | "catalogKnown" | "check">;
  close: () => void;
}) {
  const [frozen] = useState(target);
  const { feedback, pending, run } = useDialogReview(close);
  const [happened, setHappened] = useState<"yes" | "no" | null>(null);
  // A provider's answer pre-selects the outcome once, unless the reviewer already chose.
  const said = providerSaid(provider.check);
  const [preselected, setPreselected] = useState<number | null>(null);
  if (said && preselected !== said.checkId) {
    setPreselected(said.checkId);
    if (happened === null) setHappened(said.happened ? "yes" : "no");
  }
  const id = useId();
  const fields = fieldsOf(feedback);
  return (
    <form
      className="space-y-4"
      onSubmit={(event) => {
        event.preventDefault();
        const data = new FormData(event.currentTarget);
        run(
          resolveOutcomeAction,
          {
            ...frozen,
            key: effect.key,
            happened: String(data.get("happened") ?? ""),
            providerId: String(data.get("providerId") ?? ""),
            result: String(data.get("result") ?? ""),
          },
          (value) =>
            happened === "yes"
              ? `Recorded that ${effect.tool} happened. The task resumes and returns that result instead of acting.`
              : value.status === "dead"
                ? `Recorded that ${effect.tool} did not happen. It moves money, so the task stays dead: resuming it sends the money again and needs two different reviewers.`
                : `Recorded that ${effect.tool} did not happen. The task resumes and the effect may act once, with the same key.`,
        );
      }}
    >
      <p className="text-sm text-slate-700">
        <span className="font-mono">{effect.tool}</span> at step {effect.stepSeq} started, but its
        lease ran out without a result. Look it up at the provider with these, then say what
        happened.
      </p>
      <dl className="space-y-2 rounded-md bg-slate-50 px-3 py-2" data-testid="provider-refs">
        {effect.refs.map((r) => (
          <CopyValue key={r.label} label={r.label} value={r.value} />
        ))}
      </dl>
      <ProviderCheck
        taskId={frozen.taskId}
        effectKey={effect.key}
        tool={effect.tool}
        {...provider}
      />
      <fieldset>
        <legend className="text-sm font-medium text-slate-800">Did it happen?</legend>
        <div className="mt-1 space-y-1 text-sm">
          <label className="flex items-center gap-2">
            <input
              type="radio"
              name="happened"
              value="yes"
              required
              checked={happened === "yes"}
              onChange={() => setHappened("yes")}
            />
            It happened: record the provider's id or result
          </label>
          <label className="flex items-center gap-2">
            <input
              type="radio"
              name="happened"
              value="no"
              checked={happened === "no"}
              onChange={() => setHappened("no")}
            />
            It did not happen: the effect may act, with the same key (an effect that moves money
            acts only after two different reviewers approve)
          </label>
        </div>
        <FieldError id={`${id}-happened-error`} message={fields.happened} />
      </fieldset>
      {happened === "yes" ? (
        <>
          <Field id={`${id}-provider`} label="Provider's id" error={fields.providerId}>
            {(control) => (
              <input {...control} name="providerId" maxLength={200} className={inputClass} />
            )}
          </Field>
          <Field
            id={`${id}-result`}
            label="Result"
            hint="(JSON, optional, up to 16 KB)"
            error={fields.result}
          >
            {(control) => (
              <textarea
                {...control}
                name="result"
                rows={4}
                defaultValue={said?.result ?? ""}
                className={`${inputClass} font-mono`}
              />
            )}
          </Field>
        </>
      ) : null}
      <FormFoot
        feedback={feedback}
        shownFields={["happened", "providerId", "result"]}
        pending={pending}
        close={close}
        disabled={happened === null}
      >
        {pending ? "Recording…" : "Record and resume"}
      </FormFoot>
    </form>
  );
}

/** The latest check's answer when the provider gave one (not when it could not be asked). */
function providerSaid(
  check: ProviderCheckProps["check"],
): { checkId: number; happened: boolean; result: string | null } | null {
  const answer = check?.status === "answered" ? check.answer : null;
  if (!answer || !("happened" in answer)) return null;
  return {
    checkId: check?.id ?? 0,
    happened: answer.happened,
    result: "result" in answer ? JSON.stringify(answer.result, null, 2) : null,
  };
}

export function CancelForm({
  target,
  close,
  note = null,
}: {
  target: Target;
  close: () => void;
  /** What cancelling does not do (its children go on), when there is something to say. */
  note?: string | null;
}) {
  const [frozen] = useState(target);
  const { feedback, pending, run } = useDialogReview(close);
  const reasonId = useId();
  return (
    <form
      className="space-y-4"
      onSubmit={(event) => {
        event.preventDefault();
        const reason = String(new FormData(event.currentTarget).get("reason") ?? "");
        run(
          cancelTaskAction,
          { ...frozen, reason },
          () => "Cancelled. Nothing more is done for this task.",
        );
      }}
    >
      <p className="text-sm text-slate-700">
        The task stops for good. A running attempt loses its lease and writes nothing more.
      </p>
      {note ? (
        <p className="text-sm text-slate-700" data-testid="children-note">
          {note}
        </p>
      ) : null}
      <TextField
        id={reasonId}
        name="reason"
        label="Reason"
        hint="(optional, recorded in the ledger)"
        rows={2}
        maxLength={500}
        error={fieldsOf(feedback).reason}
      />
      <FormFoot
        feedback={feedback}
        shownFields={["reason"]}
        pending={pending}
        close={close}
        submitClass={dangerButton}
      >
        {pending ? "Cancelling…" : "Cancel the task"}
      </FormFoot>
    </form>
  );
}

/** "Waiting for a second reviewer — requested by X at T", with Confirm for anyone else. */
export function PendingRequest({
  target,
  request,
  actor,
  mayReview,
}: {
  target: Target;
  request: NonNullable<ReviewStateDto["pending"]>;
  actor: string;
  mayReview: boolean;
}) {
  // Not in a dialog, but a confirmed or withdrawn request leaves the page on the refresh.
  const { feedback, pending, run } = useDialogReview();
  const mine = request.requestedBy === actor;
  const corrected = request.input !== null;
  const what =
    request.action === "replay"
      ? `a replay from step ${request.fromStep}${corrected ? " with a corrected input" : ""}`
      : "resuming the task";
  return (
    <div
      className="space-y-2 rounded-md bg-amber-50 px-4 py-3 text-sm text-amber-950 ring-1 ring-amber-300 ring-inset"
      data-testid="pending-request"
    >
      <p>
        <span className="font-medium">Waiting for a second reviewer</span> — {request.requestedBy}{" "}
        asked for {what} at <Timestamp iso={request.requestedAt} /> (task version{" "}
        {request.taskVersion}). It can reach an effect that moves money, so it runs only when a
        different reviewer confirms it.
      </p>
      {corrected ? (
        <div className="space-y-2">
          <p className="font-medium">
            The correction {mine ? "you" : request.requestedBy} made, field by field:
          </p>
          {request.note ? <p className="break-words">Why: {request.note}</p> : null}
          {request.changes.length > 0 ? (
            <div className="rounded bg-white/70 p-2">
              <DiffTable
                rows={request.changes}
                caption="The input now and as the request corrects it"
                beforeLabel="Before"
                afterLabel="After"
                testId="pending-diff"
              />
            </div>
          ) : null}
          <details>
            <summary className="cursor-pointer text-xs">The whole corrected input</summary>
            <pre className="mt-1 max-h-48 overflow-auto rounded bg-white/70 p-2 font-mono text-xs break-all whitespace-pre-wrap">
              {JSON.stringify(request.input, null, 2)}
            </pre>
          </details>
        </div>
      ) : null}
      {mayReview ? (
        <div className="flex flex-wrap gap-2">
          {mine ? null : (
            <button
              type="button"
              className={primaryButton}
              disabled={pending}
              onClick={() =>
                corrected
                  ? run(
                      correctInputAction,
                      {
                        ...target,
                        input: JSON.stringify(request.input),
                        fromStep: request.fromStep,
                      },
                      () =>
                        `Confirmed: the input is corrected and the task replays from step ${request.fromStep}.`,
                    )
                  : request.action === "replay"
                    ? run(
                        replayTaskAction,
                        { ...target, fromStep: request.fromStep },
                        () =>
                          `Confirmed: replaying from step ${request.fromStep}. The task is queued.`,
                      )
                    : run(
                        resumeTaskAction,
                        target,
                        () => "Confirmed: the task resumes with a fresh attempt budget.",
                      )
              }
            >
              {corrected
                ? `Confirm the corrected input and replay from step ${request.fromStep}`
                : request.action === "replay"
                  ? `Confirm replay from step ${request.fromStep}`
                  : "Confirm resume"}
            </button>
          )}
          <button
            type="button"
            className={secondaryButton}
            disabled={pending}
            onClick={() =>
              run(
                withdrawReviewRequestAction,
                { taskId: target.taskId, requestId: request.id },
                () => "The request is withdrawn. Nothing ran.",
              )
            }
          >
            {mine ? "Withdraw my request" : "Decline (withdraw the request)"}
          </button>
        </div>
      ) : null}
      {mine ? <p>You made this request; someone else must confirm it.</p> : null}
      <ReviewFeedback feedback={feedback} />
    </div>
  );
}
