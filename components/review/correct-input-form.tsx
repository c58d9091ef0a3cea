"use client";
// Fix the input and replay: edit the task's input as JSON, read the preview (the agent's schema
// says what is wrong field by field; otherwise which fields change, which effects get a new key
// and act, which keep theirs and deduplicate), then confirm. The correction is recorded with
// before and after; when money may act a second, different reviewer confirms the same input.
import { useId, useState } from "react";
import { correctInputAction, previewCorrectionAction } from "../../lib/actions/correct-input";
import { DiffTable } from "../tasks/diff-table";
import { ShortHash } from "../tasks/short-hash";
import { FormFoot, inputClass, NoteField, useDialogReview, usePreview } from "./review-kit";
import { ReviewPreviewList } from "./review-preview-list";
import { type JournalStep, StepField } from "./step-select";

type Props = {
  taskId: string;
  version: number;
  /** The input as the task holds it now. */
  input: unknown;
  steps: readonly JournalStep[];
  lastStep: number;
  close: () => void;
};

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
  const { feedback, pending, run } = useDialogReview(close);
  const unchanged = text.trim() === original.trim();
  const { loading, current } = usePreview(
    unchanged ? null : JSON.stringify([text, fromStep]),
    () => previewCorrectionAction({ taskId, input: text, fromStep }),
    300,
  );
  const preview = current?.ok ? current.value : null;
  return (
    <form
      className="space-y-4"
      onSubmit={(event) => {
        event.preventDefault();
        if (!preview) return;
        const note = String(new FormData(event.currentTarget).get("note") ?? "");
        run(correctInputAction, { taskId, version, input: text, fromStep, note }, (v) =>
          v.waitingFor
            ? "Correction requested. Money may act, so a second, different reviewer must confirm this same input before anything runs."
            : `Input corrected: the task replays from step ${fromStep} with it (version ${v.version}).`,
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
      <StepField
        id={`${id}-step`}
        steps={steps}
        lastStep={lastStep}
        value={fromStep}
        onChange={setFromStep}
      />
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
      <NoteField id={`${id}-note`} />
      <FormFoot
        feedback={feedback}
        pending={pending}
        close={close}
        disabled={loading || !preview}
        testId="correct-confirm"
      >
        {pending
          ? "Working…"
          : preview?.twoPerson
            ? "Request the correction (second reviewer confirms)"
            : `Correct and replay from step ${fromStep}`}
      </FormFoot>
    </form>
  );
}
