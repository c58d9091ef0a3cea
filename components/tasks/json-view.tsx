// JSON from agents, tools and API callers, shown as text: React escapes every character, so a
// value that looks like markup is displayed, never interpreted.
import type { JsonValue } from "../../lib/domain/json";

export function prettyJson(value: JsonValue): string {
  return JSON.stringify(value, null, 2) ?? "null";
}

/** One line, cut at `max` characters: enough to recognise a value in a table or a summary. */
export function compactJson(value: JsonValue, max = 120): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "null");
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function JsonView({
  value,
  label,
  tall = false,
}: {
  value: JsonValue;
  /** Names the block for assistive technology. */
  label: string;
  /** Long documents (inputs, payloads) get more room before they scroll. */
  tall?: boolean;
}) {
  // Lines wrap, so a long document only scrolls down; browsers let the keyboard reach such a
  // scroller without a tabindex.
  return (
    <figure aria-label={label} className="min-w-0">
      <pre
        className={`overflow-auto rounded-md border border-slate-200 bg-slate-50 p-3 font-mono text-xs leading-relaxed whitespace-pre-wrap break-words text-slate-800 ${tall ? "max-h-[32rem]" : "max-h-72"}`}
      >
        {prettyJson(value)}
      </pre>
    </figure>
  );
}

/** Collapsed JSON with a one-line preview in the summary. */
export function JsonDetails({
  value,
  label,
  summary,
}: {
  value: JsonValue;
  label: string;
  /** Shown before the preview, e.g. "Data". */
  summary: string;
}) {
  return (
    <details className="group min-w-0">
      <summary className="cursor-pointer rounded-sm text-xs text-slate-600 select-none hover:text-slate-900">
        <span className="font-medium text-slate-700">{summary}</span>{" "}
        <span className="font-mono break-all group-open:hidden">{compactJson(value, 90)}</span>
      </summary>
      <div className="mt-2">
        <JsonView value={value} label={label} />
      </div>
    </details>
  );
}
