"use client";
// An entry's data, expanded: pretty or raw JSON as text (React escapes it; ledger data is
// written by agents, providers and API callers and is never markup), with copy and download.
import { useState } from "react";
import type { LedgerEntryDto } from "../../lib/server/queries/ledger-entry-dto";
import { downloadBlob } from "./download";

const buttonClass =
  "rounded-md border border-slate-300 bg-white px-2 py-1 text-xs font-medium text-slate-800 shadow-xs hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-sky-500";

function entryJson(entry: LedgerEntryDto): string {
  const { dataOmittedBytes: _omitted, dataPreview: _preview, ...rest } = entry;
  return JSON.stringify(rest, null, 2);
}

export function EntryData({ entry }: { entry: LedgerEntryDto }) {
  const [raw, setRaw] = useState(false);
  const [copied, setCopied] = useState<string | null>(null);

  if (entry.data === null && entry.dataOmittedBytes !== null) {
    return (
      <p className="text-sm text-slate-700">
        This entry's data is {Math.ceil(entry.dataOmittedBytes / 1024)} kB stored, too large to show
        here. The JSONL export and <code className="font-mono">GET /api/v1/ledger</code> carry it
        whole.
      </p>
    );
  }
  const text = raw ? JSON.stringify(entry.data) : JSON.stringify(entry.data, null, 2);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied("Copied.");
    } catch {
      setCopied("Could not copy: the browser refused the clipboard.");
    }
  };
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center gap-2">
        <button
          type="button"
          className={buttonClass}
          aria-pressed={raw}
          onClick={() => setRaw((r) => !r)}
        >
          {raw ? "Show pretty JSON" : "Show raw JSON"}
        </button>
        <button type="button" className={buttonClass} onClick={() => void copy()}>
          Copy data
        </button>
        <button
          type="button"
          className={buttonClass}
          onClick={() =>
            downloadBlob(
              new Blob([entryJson(entry)], { type: "application/json" }),
              `ledger-entry-${entry.id}.json`,
            )
          }
        >
          Download entry
        </button>
        <span role="status" className="text-xs text-slate-600">
          {copied}
        </span>
      </div>
      <pre
        className="max-h-96 overflow-auto rounded-md bg-slate-50 p-3 font-mono text-xs whitespace-pre-wrap break-all text-slate-900"
        data-testid={raw ? "entry-raw-json" : "entry-pretty-json"}
      >
        {text}
      </pre>
    </div>
  );
}
