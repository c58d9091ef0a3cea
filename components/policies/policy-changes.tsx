// The latest policy changes from the ledger: who changed which scope, and each field before
// and after.
import type { JsonValue } from "../../lib/domain/json";
import type { PolicyChangeDto } from "../../lib/server/queries/list-retry-policies";
import { POLICY_FIELDS } from "../../lib/server/queries/list-retry-policies";
import { JsonDetails } from "../tasks/json-view";
import { Timestamp } from "../ui/timestamp";
import { formatPolicyValue, POLICY_FIELD_LABEL } from "./policy-format";

type Values = Partial<Record<string, JsonValue>>;

function asValues(v: JsonValue | null): Values | null {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? v : null;
}

function show(field: (typeof POLICY_FIELDS)[number], v: JsonValue | undefined): string {
  if (v === undefined) return "inherits";
  if (v === null) return field === "budget" ? "Unlimited" : "—";
  return typeof v === "number" ? formatPolicyValue(field, v) : JSON.stringify(v);
}

function Diff({ change }: { change: PolicyChangeDto }) {
  const before = asValues(change.before);
  const after = asValues(change.after);
  if (!after) {
    return (
      <JsonDetails value={change.after} label={`Data of change ${change.id}`} summary="Data" />
    );
  }
  const changed = POLICY_FIELDS.filter(
    (f) => JSON.stringify(before?.[f]) !== JSON.stringify(after[f]),
  );
  if (changed.length === 0) return <span className="text-slate-600">No field changed.</span>;
  return (
    <ul className="flex flex-wrap gap-x-4 gap-y-1">
      {changed.map((f) => (
        <li key={f}>
          <span className="text-slate-600">{POLICY_FIELD_LABEL[f]}</span>{" "}
          {before ? (
            <>
              <span className="text-slate-500 line-through">{show(f, before[f])}</span>{" "}
              <span aria-hidden="true">→</span>
              <span className="sr-only">to</span>{" "}
            </>
          ) : null}
          <span className="font-medium text-slate-900">{show(f, after[f])}</span>
        </li>
      ))}
    </ul>
  );
}

export function PolicyChanges({ changes }: { changes: PolicyChangeDto[] }) {
  return (
    <ol className="divide-y divide-slate-100">
      {changes.map((c) => (
        <li key={c.id} data-entry-id={c.id} className="py-3 first:pt-0 last:pb-0">
          <p className="flex flex-wrap items-baseline gap-x-3 text-sm">
            <span className="font-mono font-medium text-slate-900">
              {c.scope ?? "unknown scope"}
            </span>
            <span className="text-slate-700">
              {c.before === null ? "set" : "changed"} by{" "}
              <span className="font-medium">{c.actor}</span>
            </span>
            <span className="text-xs text-slate-600">
              <Timestamp iso={c.at} />
            </span>
          </p>
          <div className="mt-1 text-sm">
            <Diff change={c} />
          </div>
        </li>
      ))}
    </ol>
  );
}
