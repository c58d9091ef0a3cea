// The dead-letter list's filter: reason, error group (fingerprint), agent, tool and age, all in
// the address, so a group's link, a shared link and back/forward show the same list and form.
import Link from "next/link";
import { DEAD_REASONS } from "../../lib/domain/task-states";
import { DEAD_AGES, type DeadAge } from "../../lib/server/review/dead-letter-filter";
import { FilterSelect, FilterSubmit, FilterText } from "../filters/filter-fields";
import { FilterForm } from "../filters/filter-form";
import { DEAD_REASON_LABEL } from "../ui/labels";

const linkClass =
  "rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-800 shadow-xs hover:bg-slate-50";

const REASONS = DEAD_REASONS.map((r) => ({ value: r, label: DEAD_REASON_LABEL[r] }));
const AGES = (Object.keys(DEAD_AGES) as DeadAge[]).map((a) => ({
  value: a,
  label: DEAD_AGES[a].label,
}));

const WHOSE = [{ value: "include", label: "Agents’ and alert deliveries" }];

export const DEAD_LETTER_FILTER_FIELDS = [
  "reason",
  "fingerprint",
  "agent",
  "tool",
  "age",
  "system",
] as const;

export type DeadLetterFilterValues = Partial<
  Record<(typeof DEAD_LETTER_FILTER_FIELDS)[number], string>
>;

export function DeadLetterFilterForm({
  values,
  action = "/dead-letters",
}: {
  values: DeadLetterFilterValues;
  /** Where it filters: the dead-letter list, or a bulk action's own page (its frozen set). */
  action?: string;
}) {
  const filtered = Object.values(values).some((v) => v !== undefined && v !== "");
  return (
    <FilterForm
      label="Filter dead letters"
      action={action}
      values={values}
      className="mb-6 flex flex-wrap items-end gap-3"
    >
      <FilterSelect
        id="dl-reason"
        name="reason"
        label="Reason"
        value={values.reason}
        any="Any reason"
        options={REASONS}
      />
      <FilterText
        id="dl-fingerprint"
        name="fingerprint"
        label="Error group"
        value={values.fingerprint}
        placeholder="refund <id> failed: <n>"
        width="w-72"
        search
      />
      <FilterText id="dl-agent" name="agent" label="Agent" value={values.agent} />
      <FilterText id="dl-tool" name="tool" label="Tool" value={values.tool} />
      <FilterSelect
        id="dl-age"
        name="age"
        label="Dead for"
        value={values.age}
        any="Any time"
        options={AGES}
      />
      <FilterSelect
        id="dl-system"
        name="system"
        label="Whose"
        value={values.system}
        any="Agents’ tasks"
        options={WHOSE}
      />
      <FilterSubmit />
      {filtered ? (
        <Link href={action} className={linkClass}>
          Clear filter
        </Link>
      ) : null}
    </FilterForm>
  );
}
