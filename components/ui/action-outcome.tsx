"use client";
// What a control that runs a server action says afterwards, the same for review dialogs and
// admin forms: an announced error (pointing at the fields that show their own message), or a
// polite success. A request that throws becomes an outcome too, never an unhandled rejection.
import { useRouter } from "next/navigation";
import type { ReactNode } from "react";
import type { ActionResult } from "../../lib/auth/guard";
import { secondaryButton } from "./control-styles";

/** What an action answered, or status 0 when the request itself did not complete. */
export type Outcome<T> = ActionResult<T> | { ok: false; status: 0; error: string; fields?: never };

/** An outcome as a control shows it. */
export type Feedback =
  | { ok: true; message: ReactNode }
  | { ok: false; status: number; message: string; fields: Record<string, string> };

/** Runs the action; a throw (the network, a crashed server) says so and what to do (`then`). */
export async function attempt<I, T>(
  action: (input: I) => Promise<ActionResult<T>>,
  input: I,
  then: string,
): Promise<Outcome<T>> {
  try {
    return await action(input);
  } catch (error) {
    const why = error instanceof Error ? error.message : "unknown error";
    return { ok: false, status: 0, error: `The request did not complete (${why}). ${then}` };
  }
}

/** The outcome as shown, its success said by `success`. */
export function feedbackOf<T>(outcome: Outcome<T>, success: (value: T) => ReactNode): Feedback {
  return outcome.ok
    ? { ok: true, message: success(outcome.value) }
    : { ok: false, status: outcome.status, message: outcome.error, fields: outcome.fields ?? {} };
}

/**
 * The outcome of the last action: an announced error (as alertText says it), or a polite
 * success. `reload`: on a conflict, start with `notDone` and offer a button under that label
 * that re-reads the page.
 */
export function ActionOutcome({
  feedback,
  notDone,
  shownFields = [],
  reload,
  className = "",
}: {
  feedback: Feedback | null;
  /** How a summary starts: "Not done", "Not saved". */
  notDone: string;
  /** The fields whose messages the form shows next to their inputs, or "all" of them. */
  shownFields?: readonly string[] | "all";
  reload?: string;
  className?: string;
}) {
  const router = useRouter();
  if (!feedback) return null;
  if (feedback.ok) {
    return (
      <p
        role="status"
        className={`rounded-md bg-emerald-50 px-3 py-2 text-sm text-emerald-900 ring-1 ring-emerald-200 ring-inset ${className}`}
      >
        {feedback.message}
      </p>
    );
  }
  const conflict = reload !== undefined && feedback.status === 409;
  return (
    <div
      role="alert"
      className={`rounded-md bg-rose-50 px-3 py-2 text-sm text-rose-900 ring-1 ring-rose-200 ring-inset ${className}`}
    >
      <p>
        {conflict ? <span className="font-medium">{notDone}: </span> : null}
        {alertText(feedback, notDone, shownFields)}
      </p>
      {conflict ? (
        <p className="mt-2">
          <button type="button" className={secondaryButton} onClick={() => router.refresh()}>
            {reload}
          </button>
        </p>
      ) : null}
    </div>
  );
}

/**
 * The error as the alert says it: a rejected input (400) whose every failing field shows its
 * own message is summed up, pointing there; anything else is the action's own message.
 */
export function alertText(
  feedback: Extract<Feedback, { ok: false }>,
  notDone: string,
  shown: readonly string[] | "all",
): string {
  const failing = Object.keys(feedback.fields);
  const marked =
    feedback.status === 400 &&
    failing.length > 0 &&
    failing.every((f) => shown === "all" || shown.includes(f));
  if (!marked) return feedback.message;
  const count = failing.length === 1 ? "one field needs" : `${failing.length} fields need`;
  return `${notDone}: ${count} attention (marked above).`;
}

/** A field's message from the last failed action, tied to its input by id. */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p id={id} className="mt-1 text-sm text-rose-800">
      {message}
    </p>
  );
}

/** The per-field messages of a failed action (its feedback or its outcome); none otherwise. */
export function fieldsOf(
  result: { ok: true } | { ok: false; fields?: Record<string, string> } | null,
): Record<string, string> {
  return result && !result.ok ? (result.fields ?? {}) : {};
}
