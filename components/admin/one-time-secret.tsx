"use client";
// The one time a secret (an API token, a webhook signing secret) is on screen: copy it, then
// dismiss it. Only a hash or an encrypted copy is kept, so nobody can show it later.
import { type ReactNode, useId, useRef, useState } from "react";
import { primaryButton, secondaryButton } from "../ui/control-styles";
import { LedgerNote } from "./action-feedback";

export function OneTimeSecret({
  heading,
  label,
  value,
  testId,
  ledgerKind,
  onDone,
  children,
}: {
  heading: string;
  /** What the value is, for screen readers ("The new API token"). */
  label: string;
  value: string;
  testId: string;
  /** The ledger entry the change wrote. */
  ledgerKind: string;
  onDone: () => void;
  /** What to do with it. */
  children: ReactNode;
}) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<"yes" | "select" | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied("yes");
    } catch {
      // No clipboard access (e.g. plain http on another host): leave it selected for Ctrl+C.
      input.current?.select();
      setCopied("select");
    }
  };
  return (
    <section
      aria-labelledby={`${id}-heading`}
      className="rounded-md border border-amber-300 bg-amber-50 p-4 text-amber-950"
    >
      <h3 id={`${id}-heading`} className="font-semibold">
        {heading} Copy it now: you will not see it again.
      </h3>
      <p className="mt-1 text-sm">
        {children} <LedgerNote kind={ledgerKind} />
      </p>
      <div className="mt-3 flex flex-wrap items-center gap-2">
        <label htmlFor={`${id}-value`} className="sr-only">
          {label}
        </label>
        <input
          ref={input}
          id={`${id}-value`}
          data-testid={testId}
          readOnly
          value={value}
          onFocus={(event) => event.currentTarget.select()}
          className="min-w-0 flex-1 rounded-md border border-amber-300 bg-white px-3 py-1.5 font-mono text-sm text-slate-900"
        />
        <button type="button" className={primaryButton} onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" className={secondaryButton} onClick={onDone}>
          Done
        </button>
      </div>
      <p role="status" className="mt-2 text-sm">
        {copied === "yes"
          ? "Copied to the clipboard."
          : copied === "select"
            ? "The clipboard is not available here: it is selected, press Ctrl+C (⌘C) to copy it."
            : null}
      </p>
    </section>
  );
}
