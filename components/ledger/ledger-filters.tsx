// The ledger's filters, in the address (FilterForm: shareable, and back/forward put the fields
// back). The kind field offers the kinds the ledger holds and their prefixes (effect.*).
import Link from "next/link";
import { FilterForm } from "../filters/filter-form";

const inputClass =
  "mt-1 w-full rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm shadow-xs";

type Field = {
  name: string;
  label: string;
  placeholder: string;
  hint?: string;
  mono?: boolean;
  list?: string;
};

const FIELDS: Field[] = [
  {
    name: "kind",
    label: "Kind",
    placeholder: "effect.* or task.enqueued",
    hint: "A kind, a prefix like effect.*, or several separated by commas.",
    mono: true,
    list: "ledger-kinds",
  },
  { name: "agent", label: "Agent", placeholder: "invoice-reminder" },
  { name: "tool", label: "Tool", placeholder: "send_email" },
  { name: "actor", label: "Actor", placeholder: "user:rita@example.com", mono: true },
  { name: "taskId", label: "Task id", placeholder: "a task's uuid", mono: true },
  { name: "key", label: "Effect key", placeholder: "64 hex digits", mono: true },
  {
    name: "from",
    label: "From",
    placeholder: "2026-01-31T09:00:00Z",
    hint: "ISO 8601 with a zone; inclusive.",
    mono: true,
  },
  {
    name: "to",
    label: "To",
    placeholder: "2026-01-31T18:00:00Z",
    hint: "Exclusive.",
    mono: true,
  },
];

export function LedgerFilters({
  values,
  kinds,
}: {
  values: Record<string, string>;
  kinds: string[];
}) {
  const prefixes = [
    ...new Set(kinds.filter((k) => k.includes(".")).map((k) => `${k.split(".")[0]}.*`)),
  ];
  const active = Object.keys(values).length > 0;
  return (
    <FilterForm
      label="Filter the ledger"
      action="/ledger"
      values={values}
      className="mb-4 space-y-3"
    >
      <div>
        <label htmlFor="ledger-q" className="block text-sm font-medium text-slate-800">
          Search
        </label>
        <input
          id="ledger-q"
          name="q"
          type="search"
          defaultValue={values.q ?? ""}
          placeholder="a recipient, Message-ID, refund id, intent value, task id or key"
          aria-describedby="ledger-q-hint"
          className={`${inputClass} max-w-2xl`}
        />
        <p id="ledger-q-hint" className="mt-1 text-xs text-slate-600">
          Matches whole values where they are recorded (e.g. ada@example.com), or the start of an
          effect key (8 hex digits or more).
        </p>
      </div>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4">
        {FIELDS.map((f) => (
          <div key={f.name}>
            <label
              htmlFor={`ledger-${f.name}`}
              className="block text-sm font-medium text-slate-800"
            >
              {f.label}
            </label>
            <input
              id={`ledger-${f.name}`}
              name={f.name}
              defaultValue={values[f.name] ?? ""}
              placeholder={f.placeholder}
              list={f.list}
              autoComplete="off"
              aria-describedby={f.hint ? `ledger-${f.name}-hint` : undefined}
              className={`${inputClass} ${f.mono ? "font-mono" : ""}`}
            />
            {f.hint ? (
              <p id={`ledger-${f.name}-hint`} className="mt-1 text-xs text-slate-600">
                {f.hint}
              </p>
            ) : null}
          </div>
        ))}
      </div>
      <datalist id="ledger-kinds">
        {[...prefixes, ...kinds].map((k) => (
          <option key={k} value={k} />
        ))}
      </datalist>
      <div className="flex gap-2">
        <button
          type="submit"
          className="rounded-md bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-700"
        >
          Filter
        </button>
        {active ? (
          <Link
            href="/ledger"
            className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-800 shadow-xs hover:bg-slate-50"
          >
            Clear
          </Link>
        ) : null}
      </div>
    </FilterForm>
  );
}
