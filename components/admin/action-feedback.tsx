"use client";
// What every admin form adds to the shared action outcome (components/ui/action-outcome): run a
// server action without resetting the form or refreshing the page (the action revalidates its
// page), and say what happened next to the control that did it (the success names the ledger
// entry it wrote).
import Link from "next/link";
import { type ReactNode, useState, useTransition } from "react";
import type { ActionResult } from "../../lib/auth/guard";
import { ActionOutcome, attempt, feedbackOf, type Outcome } from "../ui/action-outcome";

/** Runs `action` in a transition and keeps its last result; `onOk` sees the value once. */
export function useAdminAction<I, T>(action: (input: I) => Promise<ActionResult<T>>) {
  const [result, setResult] = useState<Outcome<T> | null>(null);
  const [pending, startTransition] = useTransition();
  const run = (input: I, onOk?: (value: T) => void) => {
    startTransition(async () => {
      const outcome = await attempt(
        action,
        input,
        "Reload the page and check before trying again.",
      );
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

/** The outcome of the last action, its success said by `success` when it shows. */
export function ActionMessage<T>({
  result,
  success,
  className,
  fieldsShown = false,
}: {
  result: Outcome<T> | null;
  success: (value: T) => ReactNode;
  className?: string;
  /** The form shows every field's message next to its input: point there instead. */
  fieldsShown?: boolean;
}) {
  return (
    <ActionOutcome
      feedback={result && feedbackOf(result, success)}
      notDone="Not saved"
      shownFields={fieldsShown ? "all" : []}
      className={className}
    />
  );
}
