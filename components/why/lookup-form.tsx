// The lookup form: a plain GET form, so it works without JavaScript. It sends `by` and `q`; the
// page turns those into the linkable address (`/why?recipient=…`) and answers there.
import { LOOKUP_EXAMPLE, LOOKUP_LABEL, LOOKUPS, type Lookup } from "./labels";

const fieldClass =
  "mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm shadow-xs";

export function LookupForm({ by, value }: { by: Lookup; value: string }) {
  return (
    <search aria-label="Look up an effect">
      <form
        method="get"
        action="/why"
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
      </form>
    </search>
  );
}
