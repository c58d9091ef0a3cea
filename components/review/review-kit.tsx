"use client";
// What every review control shares: run a server action in a transition, refresh the page's
// server data and its live queries after a success, and say what happened (components/ui/
// action-outcome; a 409 tells the loser who changed the task and offers a reload). Dialogs are
// native <dialog>s: modal, focus kept inside, Escape closes.
import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type ReactNode, useEffect, useId, useRef, useState, useTransition } from "react";
import type { ActionResult } from "../../lib/auth/guard";
import { ActionOutcome, attempt, type Feedback, feedbackOf } from "../ui/action-outcome";
import { inputClass, primaryButton, secondaryButton } from "../ui/control-styles";
import { Field } from "../ui/field";
import { useAnnounce } from "./announcer";

export { type Feedback, FieldError, fieldsOf } from "../ui/action-outcome";
export { dangerButton, inputClass, primaryButton, secondaryButton } from "../ui/control-styles";
export { Field } from "../ui/field";

type Action<I, T> = (input: I) => Promise<ActionResult<T>>;

/**
 * useReview whose success the screen's announcer says: for a form in a dialog, which `close`
 * closes first (the form that would have said it is gone), or a control the refresh may remove.
 */
export function useDialogReview(close?: () => void) {
  const review = useReview();
  const announce = useAnnounce();
  function run<I, T>(action: Action<I, T>, input: I, success: (value: T) => ReactNode) {
    review.run(action, input, success, (_, message) => {
      close?.();
      announce(message);
    });
  }
  return { ...review, run };
}

/** One action at a time; `feedback` is the last outcome. */
export function useReview() {
  const router = useRouter();
  const queries = useQueryClient();
  const [feedback, setFeedback] = useState<Feedback | null>(null);
  const [pending, startTransition] = useTransition();
  function run<I, T>(
    action: Action<I, T>,
    input: I,
    success: (value: T) => ReactNode,
    onOk?: (value: T, message: ReactNode) => void,
  ) {
    startTransition(async () => {
      const outcome = await attempt(
        action,
        input,
        "Reload the page and check the task before trying again.",
      );
      const shown = feedbackOf(outcome, success);
      setFeedback(shown);
      if (!outcome.ok || !shown.ok) return;
      onOk?.(outcome.value, shown.message);
      router.refresh();
      // Live screens re-read at once rather than at their next poll.
      void queries.invalidateQueries({ queryKey: ["screen"] });
    });
  }
  return { feedback, pending, run, clear: () => setFeedback(null) };
}

/** A review action's outcome; a conflict says "Not done" and offers to reload the task. */
export function ReviewFeedback({
  feedback,
  shownFields,
}: {
  feedback: Feedback | null;
  shownFields?: readonly string[];
}) {
  return (
    <ActionOutcome
      feedback={feedback}
      notDone="Not done"
      shownFields={shownFields}
      reload="Reload the task"
    />
  );
}

/**
 * A button that opens a modal dialog. `children` receives `close`; the dialog is labelled by
 * its title and returns focus to the button when it closes (the browser does that for us).
 */
export function ReviewDialog({
  label,
  ariaLabel,
  title,
  buttonClass = secondaryButton,
  disabled = false,
  testId,
  shortcut,
  children,
}: {
  label: string;
  /** The button's accessible name when its visible label is short ("Edit…" in a table row). */
  ariaLabel?: string;
  title: string;
  buttonClass?: string;
  disabled?: boolean;
  testId?: string;
  /** The key that opens it (components/keyboard finds the trigger by aria-keyshortcuts). */
  shortcut?: string;
  children: (close: () => void) => ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <>
      <button
        type="button"
        className={buttonClass}
        disabled={disabled}
        onClick={() => setOpen(true)}
        data-testid={testId}
        aria-keyshortcuts={shortcut}
        aria-label={ariaLabel}
      >
        {label}
      </button>
      <dialog
        ref={ref}
        aria-labelledby={titleId}
        onClose={() => setOpen(false)}
        className="m-auto w-[min(44rem,calc(100vw-2rem))] rounded-lg border border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-slate-900/40"
      >
        {open ? (
          <div className="max-h-[85vh] overflow-y-auto px-5 py-4">
            <div className="mb-3 flex items-start justify-between gap-3">
              <h2 id={titleId} className="text-base font-semibold">
                {title}
              </h2>
              <button
                type="button"
                className="rounded px-2 text-lg leading-none text-slate-600 hover:text-slate-900"
                aria-label="Close"
                onClick={() => setOpen(false)}
              >
                ×
              </button>
            </div>
            {children(() => setOpen(false))}
          </div>
        ) : null}
      </dialog>
    </>
  );
}

/**
 * How every review form ends: the last outcome, then its confirm button and Cancel. `children`
 * is the confirm button's label (the caller says what "working" reads as).
 */
export function FormFoot({
  feedback,
  shownFields,
  pending,
  close,
  disabled = false,
  submitClass = primaryButton,
  testId,
  children,
}: {
  feedback: Feedback | null;
  shownFields?: readonly string[];
  pending: boolean;
  close: () => void;
  /** Besides pending: e.g. no preview yet for what would be confirmed. */
  disabled?: boolean;
  submitClass?: string;
  testId?: string;
  children: ReactNode;
}) {
  return (
    <>
      <ReviewFeedback feedback={feedback} shownFields={shownFields} />
      <div className="flex flex-wrap gap-2">
        <button
          type="submit"
          className={submitClass}
          disabled={pending || disabled}
          data-testid={testId}
        >
          {children}
        </button>
        <button type="button" className={secondaryButton} onClick={close}>
          Cancel
        </button>
      </div>
    </>
  );
}

/** A labelled text area whose failing field message (from the last action) is tied to it. */
export function TextField({
  name,
  rows,
  required = false,
  maxLength = 1000,
  ...field
}: {
  id: string;
  name: string;
  label: string;
  hint?: string;
  rows: number;
  required?: boolean;
  maxLength?: number;
  error?: string;
}) {
  return (
    <Field {...field}>
      {(control) => (
        <textarea
          {...control}
          name={name}
          rows={rows}
          required={required}
          maxLength={maxLength}
          className={inputClass}
        />
      )}
    </Field>
  );
}

/** The optional note a review action records in the ledger; read from the form as `note`. */
export function NoteField({ id, error }: { id: string; error?: string }) {
  return (
    <TextField
      id={id}
      name="note"
      label="Note"
      hint="(optional, recorded in the ledger)"
      rows={2}
      error={error}
    />
  );
}

export type Loaded<T> = { key: string } & ({ ok: true; value: T } | { ok: false; error: string });

/**
 * A preview that follows what the reviewer is choosing. `key` names the request (null: nothing
 * to ask yet); once it has held still for `delayMs`, `load` runs. Only an answer for the key now
 * chosen is returned, so a slow answer to an earlier choice never shows as this one's. `initial`
 * is what the page already rendered, shown for its key without asking again.
 */
export function usePreview<T>(
  key: string | null,
  load: () => Promise<ActionResult<T>>,
  delayMs: number,
  initial?: { key: string; value: T },
): { loading: boolean; current: Loaded<T> | null } {
  const [loaded, setLoaded] = useState<Loaded<T> | null>(null);
  const [loading, startLoading] = useTransition();
  const latest = useRef(0);
  const initialKey = initial?.key;
  // biome-ignore lint/correctness/useExhaustiveDependencies: key names everything load asks for; a new load closure each render is not a new request
  useEffect(() => {
    if (key === null || key === initialKey) return;
    const ticket = ++latest.current;
    const timer = setTimeout(() => {
      startLoading(async () => {
        const r = await load().catch((error: unknown) => ({
          ok: false as const,
          error: error instanceof Error ? error.message : "the preview did not load",
        }));
        if (ticket !== latest.current) return;
        setLoaded(r.ok ? { key, ok: true, value: r.value } : { key, ok: false, error: r.error });
      });
    }, delayMs);
    return () => clearTimeout(timer);
  }, [key, initialKey, delayMs]);
  if (key === null) return { loading, current: null };
  if (initial && key === initial.key) {
    return { loading, current: { key, ok: true, value: initial.value } };
  }
  return { loading, current: loaded?.key === key ? loaded : null };
}

/** An admin setting's dialog from its table row: "Set…" when none is set, else "Edit…". */
export function SettingDialog({
  isSet,
  subject,
  noun,
  title,
  testId,
  children,
}: {
  isSet: boolean;
  /** Whose setting, and what it is, for the button's name: "Edit refund's limit…". */
  subject: string;
  noun: string;
  title: string;
  testId: string;
  children: (close: () => void) => ReactNode;
}) {
  const verb = isSet ? "Edit" : "Set";
  return (
    <ReviewDialog
      label={`${verb}…`}
      ariaLabel={`${verb} ${subject}'s ${noun}…`}
      title={title}
      testId={testId}
    >
      {children}
    </ReviewDialog>
  );
}
