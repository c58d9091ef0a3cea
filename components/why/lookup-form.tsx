// The lookup form: a GET form (FilterForm: a plain one without JavaScript, and its fields follow
// the address on back/forward). It sends `by` and `q`; the page turns those into the linkable
// address (`/why?recipient=…`) and answers there.
import { FilterForm } from "../filters/filter-form";
import { LOOKUP_EXAMPLE, LOOKUP_LABEL, LOOKUPS, type Lookup } from "./labels";

const fieldClass =
  "mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm shadow-xs";

export function LookupForm({ by, value }: { by: Lookup; value: string }) {
  return (
    <FilterForm
      label="Look up an effect"
      action="/why"
      values={{ by, q: value }}
      className="mb-6 grid gap-3 sm:grid-cols-[minmax(0,14rem)_minmax(0,1fr)_auto] sm:items-start"
    >
      <div className="min-w-0">
        <label htmlFor="why-by" className="block text-sm font-medium text-slate-800">
          Look up by
        </label>
        <select id="why-by" name="by" defaultValue={by} className={fieldClass}>
          {LOOKUPS.map((lookup) => (
            <option key={lookup} value={lookup}>
              {LOOKUP_LABEL[lookup]}
            </option>
          ))}
        </select>
      </div>
      <div className="min-w-0">
        <label htmlFor="why-q" className="block text-sm font-medium text-slate-800">
          Value
        </label>
        <input
          id="why-q"
          name="q"
          type="text"
          required
          maxLength={998}
          defaultValue={value}
          autoComplete="off"
          spellCheck={false}
          aria-describedby="why-q-hint"
          className={`${fieldClass} font-mono`}
        />
        <p id="why-q-hint" className="mt-1 text-xs text-slate-600">
          {LOOKUPS.map(
            (l) => `${LOOKUP_LABEL[l].replace(/ \(.*\)$/, "")}: ${LOOKUP_EXAMPLE[l]}`,
          ).join(" · ")}
          .
        </p>
      </div>
      <div className="sm:pt-6">
        <button
          type="submit"
          className="rounded-md bg-slate-900 px-4 py-1.5 text-sm font-medium text-white hover:bg-slate-700"
        >
          Explain
        </button>
      </div>
    </FilterForm>
  );
}
