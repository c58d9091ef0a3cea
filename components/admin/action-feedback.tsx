"use client";
// What every admin form shares: run a server action without resetting the form, and say what
// happened next to the control that did it (the success names the ledger entry it wrote).
import Link from "next/link";
import { type ReactNode, useState, useTransition } from "react";
import type { ActionResult } from "../../lib/auth/guard";

export const inputClass =
  "block w-full rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm shadow-xs focus:border-sky-500 focus:ring-2 focus:ring-sky-200 focus:outline-none aria-[invalid=true]:border-rose-500";
export const primaryButton =
  "rounded-md bg-slate-900 px-3 py-1.5 text-sm font-semibold text-white shadow-xs hover:bg-slate-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-500 disabled:opacity-60";
export const secondaryButton =
  "rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-800 shadow-xs hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-500 disabled:opacity-60";
export const dangerButton =
  "rounded-md bg-rose-700 px-3 py-1.5 text-sm font-semibold text-white shadow-xs hover:bg-rose-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-rose-500 disabled:opacity-60";

export type Outcome<T> = ActionResult<T> | { ok: false; status: 0; error: string; fields?: never };

/** Runs `action` in a transition and keeps its last result; `onOk` sees the value once. */
export function useAdminAction<I, T>(action: (input: I) => Promise<ActionResult<T>>) {
  const [result, setResult] = useState<Outcome<T> | null>(null);
  const [pending, startTransition] = useTransition();
  const run = (input: I, onOk?: (value: T) => void) => {
    startTransition(async () => {
      let outcome: Outcome<T>;
      try {
        outcome = await action(input);
      } catch (error) {
        outcome = {
          ok: false,
          status: 0,
          error: `The request did not complete (${error instanceof Error ? error.message : "unknown error"}). Reload the page and check before trying again.`,
        };
      }
      setResult(outcome);
      if (outcome.ok) onOk?.(outcome.value);
    });
  };
  return { result, pending, run, clear: () => setResult(null) };
}

export function ledgerKindHref(kind: string): string {
  return `/ledger?kind=${encodeURIComponent(kind)}`;
}

/** "Recorded in the ledger as user.created", linking to the ledger filtered to that kind. */
export function LedgerNote({ kind }: { kind: string }) {
  return (
    <>
      Recorded in the ledger as{" "}
      <Link
        href={ledgerKindHref(kind)}
        prefetch={false}
        className="font-mono font-medium underline underline-offset-2"
      >
        {kind}
      </Link>
      .
    </>
  );
}

/** The outcome of the last action: an announced error, or a polite success. */
export function ActionMessage<T>({
  result,
  success,
  className = "",
  fieldsShown = false,
}: {
  result: Outcome<T> | null;
  success: (value: T) => ReactNode;
  className?: string;
  /** The form shows `fields` next to its inputs: point there instead of repeating them. */
  fieldsShown?: boolean;
}) {
  if (!result) return null;
  if (!result.ok) {
    const count = result.fields ? Object.keys(result.fields).length : 0;
    return (
      <p
        role="alert"
        className={`rounded-md bg-rose-50 px-3 py-2 text-sm text-rose-900 ring-1 ring-rose-200 ring-inset ${className}`}
      >
        {fieldsShown && count > 0 && result.status === 400
          ? `Not saved: ${count === 1 ? "one field needs" : `${count} fields need`} attention (marked above).`
          : result.error}
      </p>
    );
  }
  return (
    <p
      role="status"
      className={`rounded-md bg-emerald-50 px-3 py-2 text-sm text-emerald-900 ring-1 ring-emerald-200 ring-inset ${className}`}
    >
      {success(result.value)}
    </p>
  );
}

/** The message the action gave for one field, tied to its input by id. */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p id={id} className="mt-1 text-sm text-rose-800">
      {message}
    </p>
  );
}

export function fieldErrors<T>(result: Outcome<T> | null): Record<string, string> {
  return result && !result.ok && result.fields ? result.fields : {};
}
