// Building blocks of one effect's story: a chapter with its heading, a fact in a definition
// list, and a payload that is either shown as escaped JSON or replaced by the hidden marker.
import type { ReactNode } from "react";
import type { JsonValue } from "../../lib/domain/json";
import { HIDDEN_PAYLOAD } from "../../lib/server/queries/payloads";
import { JsonView } from "../tasks/json-view";

/** One question of the story ("What was done?"), headed so a screen reader can jump to it. */
export function Chapter({
  id,
  title,
  children,
}: {
  id: string;
  title: string;
  children: ReactNode;
}) {
  return (
    <section aria-labelledby={id} className="min-w-0 border-t border-slate-100 px-4 py-4 sm:px-5">
      <h4 id={id} className="mb-2 text-sm font-semibold text-slate-900">
        {title}
      </h4>
      <div className="min-w-0 space-y-3 text-sm text-slate-800">{children}</div>
    </section>
  );
}

export function Facts({ children }: { children: ReactNode }) {
  return <dl className="grid gap-x-6 gap-y-3 sm:grid-cols-2 xl:grid-cols-3">{children}</dl>;
}

export function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs font-medium tracking-wide text-slate-600 uppercase">{term}</dt>
      <dd className="mt-0.5 min-w-0 break-words text-slate-900">{children}</dd>
    </div>
  );
}

export function isHidden(value: JsonValue): boolean {
  return value === HIDDEN_PAYLOAD;
}

/** The marker the query returns in place of a payload, shown as it is so nobody mistakes it for data. */
export function HiddenPayload() {
  return (
    <p
      data-hidden-payload
      className="rounded-md border border-dashed border-slate-300 bg-slate-50 px-3 py-2 font-mono text-xs text-slate-700"
    >
      {HIDDEN_PAYLOAD}
    </p>
  );
}

/** A payload under a small heading: escaped JSON, the hidden marker, or a note when absent. */
export function Payload({
  title,
  value,
  label,
  empty = "None recorded.",
  tall = false,
}: {
  title: ReactNode;
  value: JsonValue;
  /** Names the block for assistive technology. */
  label: string;
  empty?: string;
  tall?: boolean;
}) {
  return (
    <div className="min-w-0">
      <h5 className="mb-1 text-xs font-medium tracking-wide text-slate-600 uppercase">{title}</h5>
      {value === null ? (
        <p className="text-slate-600">{empty}</p>
      ) : isHidden(value) ? (
        <HiddenPayload />
      ) : (
        <JsonView value={value} label={label} tall={tall} />
      )}
    </div>
  );
}

/** Free text the model was given or wrote, kept as written (line breaks included), or the marker. */
export function Prose({ title, value }: { title: string; value: JsonValue }) {
  if (value === null) return null;
  return (
    <div className="min-w-0">
      <h5 className="mb-1 text-xs font-medium tracking-wide text-slate-600 uppercase">{title}</h5>
      {isHidden(value) ? (
        <HiddenPayload />
      ) : (
        <blockquote className="max-h-72 overflow-auto rounded-md border-l-4 border-slate-300 bg-slate-50 px-3 py-2 whitespace-pre-wrap break-words text-slate-800">
          {typeof value === "string" ? value : JSON.stringify(value)}
        </blockquote>
      )}
    </div>
  );
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}
