import type { Metadata } from "next";
import { InvalidAddress } from "../../components/filters/invalid-address";
import { LiveOverview } from "../../components/overview/live-overview";
import { PageHeader } from "../../components/ui/page-header";
import { pageViewer } from "../../lib/auth/page";
import { pageReaders } from "../../lib/auth/read-your-writes";
import { env } from "../../lib/env";
import { getOverview, overviewSearchSchema } from "../../lib/server/queries/get-overview";
import { parseSearchParams, type SearchParams } from "../../lib/server/queries/parse-search-params";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Overview" };

export default async function OverviewPage({
  searchParams,
}: {
  searchParams: Promise<SearchParams>;
}) {
  const viewer = await pageViewer("tasks:read");
  const parsed = parseSearchParams(overviewSearchSchema, await searchParams);
  const header = (
    <PageHeader
      title="Overview"
      description="What your agents are doing now, what needs a person, and the latest entries in the ledger."
    />
  );
  if (!parsed.ok) {
    return (
      <InvalidAddress
        header={header}
        title="This overview address is not valid."
        errors={parsed.errors}
        resetHref="/"
        resetLabel="Show the last 24 hours"
      />
    );
  }
  const overview = await getOverview((await pageReaders()).pool, viewer, {
    leaseMs: env().AGENT_LEDGER_LEASE_MS,
    window: parsed.data.window,
  });
  return (
    <>
      {header}
      <LiveOverview initial={overview} />
    </>
  );
}
