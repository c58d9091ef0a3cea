import type { Metadata } from "next";
import { filterKey, filterValues } from "../../../components/filters/filter-values";
import { InvalidAddress } from "../../../components/filters/invalid-address";
import { LiveSpend } from "../../../components/spend/live-spend";
import { SpendExport } from "../../../components/spend/spend-export";
import { SPEND_FILTER_FIELDS, SpendFilters } from "../../../components/spend/spend-filters";
import { PageHeader } from "../../../components/ui/page-header";
import { pageViewer } from "../../../lib/auth/page";
import { pageReaders } from "../../../lib/auth/read-your-writes";
import { can } from "../../../lib/domain/access";
import { getSpend, spendSearchSchema } from "../../../lib/server/queries/get-spend";
import {
  parseSearchParams,
  type SearchParams,
} from "../../../lib/server/queries/parse-search-params";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Spend" };

export default async function SpendPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const viewer = await pageViewer("metrics:read");
  const raw = await searchParams;
  const parsed = parseSearchParams(spendSearchSchema, raw);
  const values = filterValues(raw, SPEND_FILTER_FIELDS);
  const header = (
    <PageHeader
      title="Spend"
      description="What the agents' model calls cost, per UTC day, agent, model and tool, and how much went to tasks that ended dead or rejected."
    />
  );
  const { pool } = await pageReaders();
  if (!parsed.ok) {
    const fallback = await getSpend(pool, viewer, {});
    return (
      <InvalidAddress
        header={header}
        title="This spend address is not valid."
        errors={parsed.errors}
        resetHref="/spend"
        resetLabel="Show the last 30 days"
      >
        <SpendFilters values={values} choices={fallback.choices} />
      </InvalidAddress>
    );
  }
  const spend = await getSpend(pool, viewer, parsed.data);
  const query = filterKey(values);
  return (
    <>
      {header}
      <div className="flex flex-wrap items-end justify-between gap-3">
        <SpendFilters values={values} choices={spend.choices} />
        {can(viewer, "export:run") ? <SpendExport query={query} /> : null}
      </div>
      <LiveSpend key={query} initial={spend} params={values} />
    </>
  );
}
