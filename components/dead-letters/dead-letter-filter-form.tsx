// The dead-letter list's filter: reason, error group (fingerprint), agent, tool and age, all in
// the address, so a group's link, a shared link and back/forward show the same list and form.
import Link from "next/link";
import { DEAD_REASONS } from "../../lib/domain/task-states";
import { DEAD_AGES, type DeadAge } from "../../lib/server/review/dead-letter-filter";
import { FilterForm } from "../filters/filter-form";
import { DEAD_REASON_LABEL } from "../ui/labels";

const linkClass =
  "rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-800 shadow-xs hover:bg-slate-50";
const fieldClass =
  "mt-1 w-48 rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm shadow-xs";
const labelClass = "block text-sm font-medium text-slate-800";

export const DEAD_LETTER_FILTER_FIELDS = ["reason", "fingerprint", "agent", "tool", "age"] as const;

export type DeadLetterFilterValues = Partial<
  Record<(typeof DEAD_LETTER_FILTER_FIELDS)[number], string>
>;

export function DeadLetterFilterForm({ values }: { values: DeadLetterFilterValues }) {
  const filtered = Object.values(values).some((v) => v !== undefined && v !== "");
  return (
    <FilterForm
      label="Filter dead letters"
      action="/dead-letters"
      values={values}
      className="mb-6 flex flex-wrap items-end gap-3"
    >
      <div>
        <label htmlFor="dl-reason" className={labelClass}>
          Reason
        </label>
        <select
          id="dl-reason"
          name="reason"
          defaultValue={values.reason ?? ""}
          className={fieldClass}
        >
          <option value="">Any reason</option>
          {DEAD_REASONS.map((r) => (
            <option key={r} value={r}>
              {DEAD_REASON_LABEL[r]}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor="dl-fingerprint" className={labelClass}>
          Error group
        </label>
        <input
          id="dl-fingerprint"
          name="fingerprint"
          defaultValue={values.fingerprint ?? ""}
          placeholder="refund <id> failed: <n>"
          data-kb-search=""
          className={`${fieldClass} w-72`}
        />
      </div>
      <div>
        <label htmlFor="dl-agent" className={labelClass}>
          Agent
        </label>
        <input
          id="dl-agent"
          name="agent"
          defaultValue={values.agent ?? ""}
          className={fieldClass}
        />
      </div>
      <div>
        <label htmlFor="dl-tool" className={labelClass}>
          Tool
        </label>
        <input id="dl-tool" name="tool" defaultValue={values.tool ?? ""} className={fieldClass} />
      </div>
      <div>
        <label htmlFor="dl-age" className={labelClass}>
          Dead for
        </label>
        <select id="dl-age" name="age" defaultValue={values.age ?? ""} className={fieldClass}>
          <option value="">Any time</option>
          {(Object.keys(DEAD_AGES) as DeadAge[]).map((a) => (
            <option key={a} value={a}>
              {DEAD_AGES[a].label}
            </option>
          ))}
        </select>
      </div>
      <button
        type="submit"
        className="rounded-md bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-700"
      >
        Filter
      </button>
      {filtered ? (
        <Link href="/dead-letters" className={linkClass}>
          Clear filter
        </Link>
      ) : null}
    </FilterForm>
  );
}
