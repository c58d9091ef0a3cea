"use client";
// The one time a webhook rule's signing secret is on screen. The receiver verifies each
// delivery's webhook-signature with it; the dashboard never shows it again.
import { useRef, useState } from "react";
import { LedgerNote, primaryButton, secondaryButton } from "../admin/action-feedback";

export function SecretReveal({
  name,
  secret,
  kind,
  onDone,
}: {
  name: string;
  secret: string;
  /** The ledger entry the change wrote. */
  kind: string;
  onDone: () => void;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<"yes" | "select" | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied("yes");
    } catch {
      input.current?.select();
      setCopied("select");
    }
  };
  return (
    <section
      aria-labelledby="new-secret-heading"
      className="rounded-md border border-amber-300 bg-amber-50 p-4 text-amber-950"
    >
      <h3 id="new-secret-heading" className="font-semibold">
        Signing secret for “{name}”. Copy it now: you will not see it again.
      </h3>
      <p className="mt-1 text-sm">
        Give it to the receiver: it checks the <code className="font-mono">webhook-signature</code>{" "}
        header of every delivery with it and drops repeated{" "}
        <code className="font-mono">webhook-id</code>s. <LedgerNote kind={kind} />
      </p>
      <div className="mt-3 flex flex-wrap items-center gap-2">
        <label htmlFor="new-secret-value" className="sr-only">
          The signing secret
        </label>
        <input
          ref={input}
          id="new-secret-value"
          data-testid="new-secret"
          readOnly
          value={secret}
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
            ? "The clipboard is not available here: the secret is selected, press Ctrl+C (⌘C) to copy it."
            : null}
      </p>
    </section>
  );
}
