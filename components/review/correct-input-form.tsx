"use client";
// Fix the input and replay: edit the task's input as JSON, read the preview (the agent's schema
// says what is wrong field by field; otherwise which fields change, which effects get a new key
// and act, which keep theirs and deduplicate), then confirm. The correction is recorded with
// before and after; when money may act a second, different reviewer confirms the same input.
import { useEffect, useId, useRef, useState, useTransition } from "react";
import { correctInputAction, previewCorrectionAction } from "../../lib/actions/correct-input";
import type { CorrectionPreview } from "../../lib/server/review/correction";
import { DiffTable } from "../tasks/diff-table";
import { ShortHash } from "../tasks/short-hash";
import { useAnnounce } from "./announcer";
import {
  inputClass,
  primaryButton,
  ReviewFeedback,
  secondaryButton,
  useReview,
} from "./review-kit";
import { ReviewPreviewList } from "./review-preview-list";
import { type JournalStep, StepSelect } from "./step-select";

type Props = {
  taskId: string;
  version: number;
  /** The input as the task holds it now. */
  input: unknown;
  steps: readonly JournalStep[];
  lastStep: number;
  close: () => void;
};

type Loaded = { text: string; fromStep: number } & (
  | { ok: true; preview: CorrectionPreview }
  | { ok: false; error: string }
);

export function CorrectInputForm({
  taskId,
  version: shownVersion,
  input,
  steps,
  lastStep,
  close,
}: Props) {
  const id = useId();
  // The version the reviewer opened the dialog on: a live refresh must not move it under them.
  const [version] = useState(shownVersion);
  const [original] = useState(() => JSON.stringify(input, null, 2));
  const [text, setText] = useState(original);
  const [fromStep, setFromStep] = useState(1);
  const [note, setNote] = useState("");
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [loading, startLoading] = useTransition();
  const latest = useRef(0);
  const { feedback, pending, run } = useReview();
  const announce = useAnnounce();
  const unchanged = text.trim() === original.trim();

  useEffect(() => {
    if (unchanged) return;
    const ticket = ++latest.current;
    const timer = setTimeout(() => {
      startLoading(async () => {
        const r = await previewCorrectionAction({ taskId, input: text, fromStep }).catch(
          (error: unknown) => ({
            ok: false as const,
            status: 0,
            error: error instanceof Error ? error.message : "the preview did not load",
          }),
        );
        if (ticket !== latest.current) return;
        setLoaded(
          r.ok
            ? { text, fromStep, ok: true, preview: r.value }
            : { text, fromStep, ok: false, error: r.error },
        );
      });
    }, 300);
    return () => clearTimeout(timer);
  }, [text, fromStep, unchanged, taskId]);

  const current = loaded && loaded.text === text && loaded.fromStep === fromStep ? loaded : null;
  const preview = current?.ok ? current.preview : null;
  return (
    <form
      className="space-y-4"
      onSubmit={(event) => {
        event.preventDefault();
        if (!preview) return;
        run(
          correctInputAction,
          { taskId, version, input: text, fromStep, note },
          (v) =>
            v.waitingFor
              ? "Correction requested. Money may act, so a second, different reviewer must confirm this same input before anything runs."
              : `Input corrected: the task replays from step ${fromStep} with it (version ${v.version}).`,
          (_, message) => {
            close();
            announce(message);
          },
        );
      }}
    >
      <div>
        <label htmlFor={`${id}-input`} className="block text-sm font-medium text-slate-800">
          Corrected input (JSON)
        </label>
        <textarea
          id={`${id}-input`}
          name="input"
          rows={10}
          spellCheck={false}
          value={text}
          onChange={(e) => setText(e.target.value)}
          className={`${inputClass} font-mono text-xs`}
          aria-describedby={`${id}-input-hint`}
          data-testid="correct-input"
        />
        <p id={`${id}-input-hint`} className="mt-1 text-xs text-slate-600">
          It must pass the agent's input schema. The original stays in the ledger; the correction is
          recorded beside it with your name.
        </p>
      </div>
      <div>
        <label htmlFor={`${id}-step`} className="block text-sm font-medium text-slate-800">
          Replay from step
        </label>
        <StepSelect
          id={`${id}-step`}
          steps={steps}
          lastStep={lastStep}
          value={fromStep}
          onChange={setFromStep}
        />
      </div>
      <section aria-label="Preview" aria-busy={loading} className="min-h-16 space-y-3">
        {unchanged ? (
          <p className="text-sm text-slate-600">
            Change the input to see what the replay would do.
          </p>
        ) : current && !current.ok ? (
          <p role="alert" className="text-sm text-rose-900" data-testid="correct-error">
            {current.error}
          </p>
        ) : preview ? (
          <>
            <DiffTable
              rows={preview.correction.changes}
              caption="The input before and after the correction"
              beforeLabel="Before"
              afterLabel="After"
              testId="correct-diff"
            />
            {preview.correction.effects.length > 0 ? (
              <ul className="space-y-1 text-sm" data-testid="correct-keys">
                {preview.correction.effects.map((e) => (
                  <li key={e.key}>
                    <span className="font-mono">{e.tool}</span> (step {e.step}):{" "}
                    {e.keyChanges ? (
                      <>
                        its intent changes ({e.because.join(", ")}), new key{" "}
                        <ShortHash value={e.newKey} />: <strong>acts</strong>
                      </>
                    ) : e.outcome === "dedupe" ? (
                      <>
                        same key <ShortHash value={e.key} />: deduplicated, returns its stored
                        result
                      </>
                    ) : (
                      <>
                        same key <ShortHash value={e.key} />: it did not succeed, so it{" "}
                        <strong>acts</strong>
                      </>
                    )}
                  </li>
                ))}
              </ul>
            ) : null}
            <ReviewPreviewList preview={preview} />
          </>
        ) : (
          <p className="text-sm text-slate-600">Checking the input…</p>
        )}
      </section>
      <div>
        <label htmlFor={`${id}-note`} className="block text-sm font-medium text-slate-800">
          Note{" "}
          <span className="font-normal text-slate-600">(optional, recorded in the ledger)</span>
        </label>
        <textarea
          id={`${id}-note`}
          name="note"
          rows={2}
          maxLength={1000}
          value={note}
          onChange={(e) => setNote(e.target.value)}
          className={inputClass}
        />
      </div>
      <ReviewFeedback feedback={feedback} />
      <div className="flex flex-wrap gap-2">
        <button
          type="submit"
          className={primaryButton}
          disabled={pending || loading || !preview}
          data-testid="correct-confirm"
        >
          {pending
            ? "Working…"
            : preview?.twoPerson
              ? "Request the correction (second reviewer confirms)"
              : `Correct and replay from step ${fromStep}`}
        </button>
        <button type="button" className={secondaryButton} onClick={close}>
          Cancel
        </button>
      </div>
    </form>
  );
}
