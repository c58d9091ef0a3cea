// The spend screen's filter: a window of UTC days and an agent, model or tool, all in the
// address (a GET form), so a filtered view can be shared and the export reads the same.
import { NO_TOOL_LABEL, NO_TOOL_PARAM } from "../../lib/server/queries/get-spend";
import { FilterSelect, FilterSubmit, FilterText } from "../filters/filter-fields";
import { FilterForm } from "../filters/filter-form";

export const SPEND_FILTER_FIELDS = ["from", "to", "agent", "model", "tool"] as const;

const options = (names: readonly string[]) => names.map((n) => ({ value: n, label: n }));

export function SpendFilters({
  values,
  choices,
}: {
  values: Record<string, string | undefined>;
  choices: { agents: string[]; models: string[]; tools: string[] };
}) {
  const tools = choices.tools.map((t) =>
    t === "" ? { value: NO_TOOL_PARAM, label: NO_TOOL_LABEL } : { value: t, label: t },
  );
  return (
    <FilterForm
      label="Filter spend"
      action="/spend"
      values={values}
      className="flex flex-wrap items-end gap-3"
    >
      <FilterText
        id="spend-from"
        name="from"
        label="From (UTC day)"
        value={values.from}
        width="w-36"
        placeholder="YYYY-MM-DD"
      />
      <FilterText
        id="spend-to"
        name="to"
        label="To (UTC day)"
        value={values.to}
        width="w-36"
        placeholder="YYYY-MM-DD"
      />
      <FilterSelect
        id="spend-agent"
        name="agent"
        label="Agent"
        value={values.agent}
        any="Every agent"
        options={options(choices.agents)}
      />
      <FilterSelect
        id="spend-model"
        name="model"
        label="Model"
        value={values.model}
        any="Every model"
        options={options(choices.models)}
      />
      <FilterSelect
        id="spend-tool"
        name="tool"
        label="Tool"
        value={values.tool}
        any="Every tool"
        options={tools}
      />
      <FilterSubmit />
    </FilterForm>
  );
}
