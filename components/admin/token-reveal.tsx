"use client";
// The one time a token's secret is on screen: copy it, then dismiss it. Only its hash is kept.
import { useRef, useState } from "react";
import { LedgerNote, primaryButton, secondaryButton } from "./action-feedback";

export function TokenReveal({
  name,
  token,
  onDone,
}: {
  name: string;
  token: string;
  onDone: () => void;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<"yes" | "select" | null>(null);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(token);
      setCopied("yes");
    } catch {
      // No clipboard access (e.g. plain http on another host): leave it selected for Ctrl+C.
      input.current?.select();
      setCopied("select");
    }
  };

  return (
    <section
      aria-labelledby="new-token-heading"
      className="rounded-md border border-amber-300 bg-amber-50 p-4 text-amber-950"
    >
      <h3 id="new-token-heading" className="font-semibold">
        Token “{name}” created. Copy it now: you will not see it again.
      </h3>
      <p className="mt-1 text-sm">
        Only its hash is stored, so nobody can show it later. If it is lost, revoke it and create
        another. <LedgerNote kind="token.created" />
      </p>
      <div className="mt-3 flex flex-wrap items-center gap-2">
        <label htmlFor="new-token-value" className="sr-only">
          The new API token
        </label>
        <input
          ref={input}
          id="new-token-value"
          data-testid="new-token"
          readOnly
          value={token}
          onFocus={(event) => event.currentTarget.select()}
          className="min-w-0 flex-1 rounded-md border border-amber-300 bg-white px-3 py-1.5 font-mono text-sm text-slate-900"
        />
        <button
          type="button"
          className={primaryButton}
          onClick={() => {
            void copy();
          }}
        >
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
            ? "The clipboard is not available here: the token is selected, press Ctrl+C (⌘C) to copy it."
            : null}
      </p>
    </section>
  );
}
