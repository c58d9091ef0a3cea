"use client";
// Replay from step N: pick the step by name from the journal, read the live preview of what it would do (each effect
// deduplicated or acting, money marked), then confirm. When the preview reaches money the
// confirmation becomes a request that a second, different reviewer confirms.
import { useEffect, useId, useRef, useState, useTransition } from "react";
import { previewReplayAction, replayTaskAction } from "../../lib/actions/review";
import type { ReviewPreview } from "../../lib/domain/replay-plan";
import { useAnnounce } from "./announcer";
import { primaryButton, ReviewFeedback, secondaryButton, useReview } from "./review-kit";
import { ReviewPreviewList } from "./review-preview-list";
import { type JournalStep, StepSelect } from "./step-select";

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
  const [step, setStep] = useState(String(initial.fromStep));
  const [preview, setPreview] = useState<ReviewPreview | null>(initial);
  const [previewError, setPreviewError] = useState<string | null>(null);
  const [loading, startLoading] = useTransition();
  const latest = useRef(0);
  const { feedback, pending, run } = useReview();
  const announce = useAnnounce();
  const max = lastStep + 1;
  const fromStep = Number(step);
  const valid = Number.isInteger(fromStep) && fromStep >= 1 && fromStep <= max;

  useEffect(() => {
    if (!valid) return;
    if (fromStep === initial.fromStep) {
      setPreview(initial);
      setPreviewError(null);
      return;
    }
    const ticket = ++latest.current;
    const timer = setTimeout(() => {
      startLoading(async () => {
        const r = await previewReplayAction({ taskId, fromStep }).catch((error: unknown) => ({
          ok: false as const,
          status: 0,
          error: error instanceof Error ? error.message : "the preview did not load",
        }));
        if (ticket !== latest.current) return;
        if (r.ok) {
          setPreview(r.value);
          setPreviewError(null);
        } else {
          setPreview(null);
          setPreviewError(r.error);
        }
      });
    }, 200);
    return () => clearTimeout(timer);
  }, [fromStep, valid, taskId, initial]);

  const shown = valid && preview?.fromStep === fromStep ? preview : null;
  return (
    <form
      className="space-y-4"
      onSubmit={(event) => {
        event.preventDefault();
        if (!shown) return;
        run(
          replayTaskAction,
          { taskId, version, fromStep },
          (v) =>
            v.waitingFor
              ? `Replay from step ${fromStep} requested. It can reach money, so a second, different reviewer must confirm it before anything runs.`
              : `Replaying from step ${fromStep}: the task is queued (version ${v.version}).`,
          (_, message) => {
            close();
            announce(message);
          },
        );
      }}
    >
      <div>
        <label htmlFor={stepId} className="block text-sm font-medium text-slate-800">
          Replay from step
        </label>
        <StepSelect
          id={stepId}
          steps={steps}
          lastStep={lastStep}
          value={fromStep}
          onChange={(n) => setStep(String(n))}
          describedBy={`${stepId}-hint`}
        />
        <p id={`${stepId}-hint`} className="mt-1 text-xs text-slate-600">
          Steps before it keep their journaled results; from it on the agent runs again with the
          same keys. The journal has {lastStep} step{lastStep === 1 ? "" : "s"}.
        </p>
      </div>
      <section aria-label="Preview" aria-busy={loading} className="min-h-16">
        {previewError ? (
          <p role="alert" className="text-sm text-rose-900">
            The preview did not load: {previewError}
          </p>
        ) : shown ? (
          <ReviewPreviewList preview={shown} />
        ) : valid ? (
          <p className="text-sm text-slate-600">Loading the preview…</p>
        ) : null}
      </section>
      <ReviewFeedback feedback={feedback} />
      <div className="flex flex-wrap gap-2">
        <button
          type="submit"
          className={primaryButton}
          disabled={pending || loading || !shown}
          data-testid="replay-confirm"
        >
          {pending
            ? "Working…"
            : shown?.twoPerson
              ? `Request replay from step ${fromStep} (second reviewer confirms)`
              : `Confirm replay from step ${valid ? fromStep : "…"}`}
        </button>
        <button type="button" className={secondaryButton} onClick={close}>
          Cancel
        </button>
      </div>
    </form>
  );
}
