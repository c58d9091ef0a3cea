"use client";
// Export of the current filter, streamed from the browser: it pages through GET /api/v1/ledger
// (the screen's own search, the signed-in session, every entry whole with its hashes) and
// writes each page as it arrives, to a file the person picked where the browser can
// (showSaveFilePicker), otherwise into a Blob that is saved at the end. A running count says how
// far it got; Cancel stops between pages. CSV cells are defused against spreadsheet formulas.
import { useRef, useState } from "react";
import { csvRow } from "../../lib/domain/csv";
import type { JsonValue } from "../../lib/domain/json";
import { summarizeEntry } from "../../lib/domain/ledger-summary";
import type { LedgerApiEntry, LedgerApiPage } from "../../lib/server/queries/ledger-entry-dto";
import { downloadBlob } from "./download";

type Format = "jsonl" | "csv";

const CSV_HEADER = [
  "id",
  "at",
  "stream",
  "seq",
  "kind",
  "actor",
  "task_id",
  "key",
  "summary",
  "data",
  "prev_hash",
  "hash",
];
const EXPORT_PAGE = 200;

function line(format: Format, e: LedgerApiEntry): string {
  if (format === "jsonl") return `${JSON.stringify(e)}\n`;
  return csvRow([
    e.id,
    e.at,
    e.stream,
    e.seq,
    e.kind,
    e.actor,
    e.taskId,
    e.key,
    summarizeEntry({ kind: e.kind, actor: e.actor, data: e.data as JsonValue }),
    JSON.stringify(e.data),
    e.prevHash,
    e.hash,
  ]);
}

type Sink = {
  write: (text: string) => Promise<void>;
  close: () => Promise<void>;
  abort: () => Promise<void>;
};

type SaveFilePicker = (options: {
  suggestedName: string;
  types: { description: string; accept: Record<string, string[]> }[];
}) => Promise<{ createWritable: () => Promise<WritableStream<string>> }>;

/** Where the file goes: straight to disk where the browser lets a page write one, else a Blob. */
async function openSink(format: Format, filename: string): Promise<Sink> {
  const picker = (window as unknown as { showSaveFilePicker?: SaveFilePicker }).showSaveFilePicker;
  // Automated browsers cannot answer a save dialog; they take the download path.
  if (picker && !navigator.webdriver) {
    const handle = await picker({
      suggestedName: filename,
      types: [
        format === "csv"
          ? { description: "CSV", accept: { "text/csv": [".csv"] } }
          : { description: "JSON Lines", accept: { "application/jsonl": [".jsonl"] } },
      ],
    });
    const writable = await handle.createWritable();
    const writer = writable.getWriter();
    return {
      write: (text) => writer.write(text),
      close: () => writer.close(),
      abort: () => writer.abort(),
    };
  }
  const parts: string[] = [];
  return {
    write: async (text) => {
      parts.push(text);
    },
    close: async () => {
      const type = format === "csv" ? "text/csv;charset=utf-8" : "application/jsonl";
      downloadBlob(new Blob(parts, { type }), filename);
    },
    abort: async () => {
      parts.length = 0;
    },
  };
}

async function readPage(url: string, signal: AbortSignal): Promise<LedgerApiPage> {
  const response = await fetch(url, { signal, headers: { accept: "application/json" } });
  if (!response.ok) {
    let detail = `${response.status} ${response.statusText}`;
    try {
      const body: unknown = await response.json();
      if (typeof body === "object" && body !== null && "detail" in body) {
        detail = String(body.detail);
      }
    } catch {
      // Not problem+json: the status says enough.
    }
    throw new Error(detail);
  }
  // Our own API answering its published schema from the same build.
  return (await response.json()) as LedgerApiPage;
}

type State =
  | { phase: "idle" }
  | { phase: "running"; format: Format; count: number }
  | { phase: "done"; format: Format; count: number; filename: string }
  | { phase: "cancelled"; count: number }
  | { phase: "failed"; count: number; message: string };

const buttonClass =
  "rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-800 shadow-xs hover:bg-slate-50 disabled:opacity-50 focus-visible:outline-2 focus-visible:outline-sky-500";

export function LedgerExport({ query }: { query: string }) {
  const [state, setState] = useState<State>({ phase: "idle" });
  const abort = useRef<AbortController | null>(null);

  const run = async (format: Format) => {
    const controller = new AbortController();
    abort.current = controller;
    const stamp = new Date().toISOString().slice(0, 19).replaceAll(":", "-");
    const filename = `ledger-${stamp}.${format}`;
    let count = 0;
    let sink: Sink;
    try {
      sink = await openSink(format, filename);
    } catch {
      // The person closed the save dialog.
      setState({ phase: "idle" });
      return;
    }
    setState({ phase: "running", format, count });
    try {
      if (format === "csv") await sink.write(csvRow(CSV_HEADER));
      let cursor: string | null = null;
      do {
        const params = new URLSearchParams(query);
        params.set("limit", String(EXPORT_PAGE));
        if (cursor) params.set("cursor", cursor);
        const page = await readPage(`/api/v1/ledger?${params}`, controller.signal);
        await sink.write(page.entries.map((e) => line(format, e)).join(""));
        count += page.entries.length;
        setState({ phase: "running", format, count });
        cursor = page.nextCursor;
      } while (cursor !== null && !controller.signal.aborted);
      if (controller.signal.aborted) throw new DOMException("cancelled", "AbortError");
      await sink.close();
      setState({ phase: "done", format, count, filename });
    } catch (err) {
      await sink.abort().catch(() => {});
      if (controller.signal.aborted) setState({ phase: "cancelled", count });
      else
        setState({
          phase: "failed",
          count,
          message: err instanceof Error ? err.message : String(err),
        });
    } finally {
      abort.current = null;
    }
  };

  const running = state.phase === "running";
  return (
    <div className="flex flex-wrap items-center gap-2" data-testid="ledger-export">
      <span className="text-sm font-medium text-slate-800">Export this filter:</span>
      <button
        type="button"
        className={buttonClass}
        disabled={running}
        onClick={() => void run("jsonl")}
      >
        JSONL
      </button>
      <button
        type="button"
        className={buttonClass}
        disabled={running}
        onClick={() => void run("csv")}
      >
        CSV
      </button>
      {running ? (
        <button type="button" className={buttonClass} onClick={() => abort.current?.abort()}>
          Cancel export
        </button>
      ) : null}
      <span role="status" className="text-sm text-slate-700" data-testid="export-status">
        {state.phase === "running"
          ? `Exporting ${state.format.toUpperCase()}… ${state.count} entries so far`
          : state.phase === "done"
            ? `Exported ${state.count} entries to ${state.filename}.`
            : state.phase === "cancelled"
              ? `Export cancelled after ${state.count} entries; nothing was saved.`
              : state.phase === "failed"
                ? `Export failed after ${state.count} entries: ${state.message}`
                : ""}
      </span>
    </div>
  );
}
