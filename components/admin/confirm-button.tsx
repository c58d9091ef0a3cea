"use client";
// A destructive control in two steps: the first press asks, in place, what will happen; only
// the second acts. Focus moves to the confirming button and back on cancel.
import { type ReactNode, useEffect, useRef, useState } from "react";
import { dangerButton, secondaryButton } from "../ui/control-styles";

export function ConfirmButton({
  label,
  question,
  confirmLabel,
  onConfirm,
  pending,
  danger = true,
}: {
  label: string;
  question: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  pending: boolean;
  danger?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const openRef = useRef<HTMLButtonElement>(null);
  const returnFocus = useRef(false);

  useEffect(() => {
    if (asking) confirmRef.current?.focus();
    else if (returnFocus.current) openRef.current?.focus();
  }, [asking]);

  if (!asking) {
    return (
      <button
        ref={openRef}
        type="button"
        className={secondaryButton}
        disabled={pending}
        onClick={() => setAsking(true)}
      >
        {pending ? "Working…" : label}
      </button>
    );
  }
  return (
    <div className="flex flex-wrap items-center gap-2 rounded-md bg-amber-50 px-2 py-1.5 text-sm text-amber-950 ring-1 ring-amber-300 ring-inset">
      <span>{question}</span>
      <button
        ref={confirmRef}
        type="button"
        className={danger ? dangerButton : secondaryButton}
        onClick={() => {
          returnFocus.current = true;
          setAsking(false);
          onConfirm();
        }}
      >
        {confirmLabel}
      </button>
      <button
        type="button"
        className={secondaryButton}
        onClick={() => {
          returnFocus.current = true;
          setAsking(false);
        }}
      >
        Cancel
      </button>
    </div>
  );
}
