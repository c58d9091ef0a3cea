"use client";
// Replay from step N: pick the step by name from the journal, read the live preview of what it would do (each effect
// deduplicated or acting, money marked), then confirm. When the preview reaches money the
// confirmation becomes a request that a second, different reviewer confirms.
import { useId, useState } from "react";
import { previewReplayAction, replayTaskAction } from "../../lib/actions/review";
import type { ReviewPreview } from "../../lib/domain/replay-plan";
import { FormFoot, useDialogReview, usePreview } from "./review-kit";
import { ReviewPreviewList } from "./review-preview-list";
import { type JournalStep, StepField } from "./step-select";

type Props = {
  taskId: string;
  version: number;
  lastStep: number;
  /** The journal, for naming the steps to start from. */
  steps: readonly JournalStep[];
  /** The preview from step 1 the page rendered. */
  initial: ReviewPreview;
  close: () => void;
};

export function ReplayForm({
  taskId,
  version: shownVersion,
  lastStep,
  steps,
  initial,
  close,
}: Props) {
  const stepId = useId();
  // The version the reviewer opened the dialog on: a live refresh must not move it under them.
  const [version] = useState(shownVersion);
  const [fromStep, setFromStep] = useState(initial.fromStep);
  const { feedback, pending, run } = useDialogReview(close);
  const valid = Number.isInteger(fromStep) && fromStep >= 1 && fromStep <= lastStep + 1;
  const { loading, current } = usePreview(
    valid ? String(fromStep) : null,
    () => previewReplayAction({ taskId, fromStep }),
    200,
    { key: String(initial.fromStep), value: initial },
  );
  const shown = current?.ok ? current.value : null;
  return (
    <form
      className="space-y-4"
      onSubmit={(event) => {
        event.preventDefault();
        if (!shown) return;
        run(replayTaskAction, { taskId, version, fromStep }, (v) =>
          v.waitingFor
            ? `Replay from step ${fromStep} requested. It can reach money, so a second, different reviewer must confirm it before anything runs.`
            : `Replaying from step ${fromStep}: the task is queued (version ${v.version}).`,
        );
      }}
    >
      <StepField
        id={stepId}
        steps={steps}
        lastStep={lastStep}
        value={fromStep}
        onChange={setFromStep}
        hint={
          <>
            Steps before it keep their journaled results; from it on the agent runs again with the
            same keys. The journal has {lastStep} step{lastStep === 1 ? "" : "s"}.
          </>
        }
      />
      <section aria-label="Preview" aria-busy={loading} className="min-h-16">
        {current && !current.ok ? (
          <p role="alert" className="text-sm text-rose-900">
            The preview did not load: {current.error}
          </p>
        ) : shown ? (
          <ReviewPreviewList preview={shown} />
        ) : valid ? (
          <p className="text-sm text-slate-600">Loading the preview…</p>
        ) : null}
      </section>
      <FormFoot
        feedback={feedback}
        pending={pending}
        close={close}
        disabled={loading || !shown}
        testId="replay-confirm"
      >
        {pending
          ? "Working…"
          : shown?.twoPerson
            ? `Request replay from step ${fromStep} (second reviewer confirms)`
            : `Confirm replay from step ${valid ? fromStep : "…"}`}
      </FormFoot>
    </form>
  );
}
