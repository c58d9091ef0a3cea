// The policy history from the ledger, newest first: who changed which scope, and each changed
// field before → after, in the screen's units, with where a value in force came from when it
// was not the scope's own row ("Max attempts 6 (agent code) → 5").
import { policyChangeSides } from "../../lib/domain/policy-text";
import type { PolicyChangeDto } from "../../lib/server/queries/list-retry-policies";
import { JsonDetails } from "../tasks/json-view";
import { Timestamp } from "../ui/timestamp";
import { POLICY_FIELD_LABEL } from "./policy-format";

function Fields({ change }: { change: PolicyChangeDto }) {
  if (change.setting) {
    const { field, label, before, after } = change.setting;
    return (
      <ul className="flex flex-wrap gap-x-5 gap-y-1">
        <Change field={field} label={label} before={before} after={after} />
      </ul>
    );
  }
  if (!change.fields) {
    return <JsonDetails value={change.data} label={`Data of change ${change.id}`} summary="Data" />;
  }
  if (change.fields.length === 0) return <span className="text-slate-600">No field changed.</span>;
  return (
    <ul className="flex flex-wrap gap-x-5 gap-y-1">
      {change.fields.map((c) => (
        <Change
          key={c.field}
          field={c.field}
          label={POLICY_FIELD_LABEL[c.field]}
          {...policyChangeSides(change.scope, c)}
        />
      ))}
    </ul>
  );
}

function Change({
  field,
  label,
  before,
  after,
}: {
  field: string;
  label: string;
  before: string;
  after: string;
}) {
  return (
    <li data-field={field}>
      <span className="text-slate-600">{label}</span>{" "}
      <span data-side="before" className="text-slate-600">
        {before}
      </span>{" "}
      <span aria-hidden="true">→</span>
      <span className="sr-only">to</span>{" "}
      <span data-side="after" className="font-medium text-slate-900">
        {after}
      </span>
    </li>
  );
}

export function PolicyChanges({ changes }: { changes: PolicyChangeDto[] }) {
  return (
    <ol aria-label="Policy changes, newest first" className="divide-y divide-slate-100">
      {changes.map((c) => (
        <li key={c.id} data-entry-id={c.id} className="py-3 first:pt-0 last:pb-0">
          <p className="flex flex-wrap items-baseline gap-x-3 text-sm">
            <span className="font-mono font-medium text-slate-900">
              {c.scope ?? "unknown scope"}
            </span>
            <span className="text-slate-700">
              {c.created ? "set" : "changed"} by <span className="font-medium">{c.actor}</span>
            </span>
            <span className="text-xs text-slate-600">
              <Timestamp iso={c.at} />
            </span>
            <span className="text-xs text-slate-600">ledger entry {c.id}</span>
          </p>
          <div className="mt-1 text-sm">
            <Fields change={c} />
          </div>
        </li>
      ))}
    </ol>
  );
}
