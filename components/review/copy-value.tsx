"use client";
// A value a reviewer copies to look it up elsewhere (a provider's dashboard, a mail log): shown
// whole, with a copy button that says when it worked.
import { useState } from "react";
import { secondaryButton } from "./review-kit";

export function CopyValue({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="flex flex-wrap items-start gap-2 text-sm" data-testid="provider-ref">
      <dt className="w-full text-xs font-medium text-slate-700">{label}</dt>
      <dd className="min-w-0 flex-1 font-mono text-xs break-all text-slate-900">{value}</dd>
      <dd>
        <button
          type="button"
          className={`${secondaryButton} px-2 py-0.5 text-xs`}
          aria-label={`Copy ${label}`}
          onClick={() => {
            void navigator.clipboard?.writeText(value).then(
              () => setCopied(true),
              () => setCopied(false),
            );
          }}
        >
          {copied ? "Copied" : "Copy"}
        </button>
      </dd>
    </div>
  );
}
