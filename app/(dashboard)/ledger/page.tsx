import type { Metadata } from "next";
import { filterKey, filterValues } from "../../../components/filters/filter-values";
import { InvalidAddress } from "../../../components/filters/invalid-address";
import { ChainBadge } from "../../../components/ledger/chain-badge";
import { LedgerExport } from "../../../components/ledger/ledger-export";
import { LedgerFilters } from "../../../components/ledger/ledger-filters";
import { LedgerPager } from "../../../components/ledger/ledger-pager";
import { LedgerTable } from "../../../components/ledger/ledger-table";
import { LiveLedger } from "../../../components/ledger/live-ledger";
import { EmptyState } from "../../../components/ui/empty-state";
import { PageHeader } from "../../../components/ui/page-header";
import { pageViewer } from "../../../lib/auth/page";
import { pageReaders } from "../../../lib/auth/read-your-writes";
import { getLedgerVerification } from "../../../lib/server/queries/get-ledger-verification";
import {
  LEDGER_PAGE_SIZE,
  ledgerSearchFields,
  ledgerSearchSchema,
} from "../../../lib/server/queries/ledger-search";
import { listLedgerEntries } from "../../../lib/server/queries/list-ledger-entries";
import { listLedgerKinds } from "../../../lib/server/queries/list-ledger-kinds";
import {
  parseSearchParams,
  type SearchParams,
} from "../../../lib/server/queries/parse-search-params";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Ledger" };

/** The filter fields of the address: everything it parses but the page position. */
const FILTER_FIELDS = Object.keys(ledgerSearchFields).filter(
  (f) => f !== "cursor" && f !== "limit",
);

export default async function LedgerPage({
  searchParams,
}: {
  searchParams: Promise<SearchParams>;
}) {
  const viewer = await pageViewer("ledger:read");
  const raw = await searchParams;
  const parsed = parseSearchParams(ledgerSearchSchema, raw);
  const header = (
    <PageHeader
      title="Ledger"
      description="Every step agents took and every decision people made, newest first. Entries are append-only and hash-chained per stream: a correction is a new entry, never an edit."
    />
  );
  const { db } = await pageReaders();
  const [kinds, verification] = await Promise.all([
    listLedgerKinds(db, viewer),
    getLedgerVerification(db, viewer),
  ]);
  const values = filterValues(raw, FILTER_FIELDS);
  const filters = <LedgerFilters values={values} kinds={kinds} />;

  if (!parsed.ok) {
    return (
      <InvalidAddress
        header={header}
        title="This ledger address is not valid."
        errors={parsed.errors}
        resetHref="/ledger"
        resetLabel="Show the latest entries"
      >
        <ChainBadge status={verification} />
        {filters}
      </InvalidAddress>
    );
  }

  const search = parsed.data;
  const page = await listLedgerEntries(db, viewer, search);
  const filtered = Object.keys(values).length > 0;
  const query = filterKey(values);
  const caption = `Ledger entries, newest first, up to ${search.limit ?? LEDGER_PAGE_SIZE} per page`;
  const empty = {
    title: search.cursor !== undefined ? "No older entries" : "No entries match",
    body: filtered
      ? "Nothing recorded matches these filters. Free text matches whole values: a recipient, a Message-ID, a refund id, an intent value, a task id or the start of an effect key."
      : "Entries are appended as agents run and people review their work.",
  };

  return (
    <>
      {header}
      <ChainBadge status={verification} />
      {filters}
      <section
        aria-labelledby="ledger-results"
        className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-5"
      >
        <div className="mb-3 flex flex-wrap items-center justify-between gap-3">
          <h2 id="ledger-results" className="text-base font-semibold text-slate-900">
            {filtered ? "Matching entries" : "Entries"}
            {search.cursor !== undefined ? (
              <span className="font-normal text-slate-600"> (older)</span>
            ) : null}
          </h2>
          <LedgerExport query={query} />
        </div>
        {search.cursor === undefined ? (
          // Remounted per filter: rows opened under one search do not stay open under the next.
          <LiveLedger key={query} initial={page} values={values} caption={caption} empty={empty} />
        ) : page.entries.length === 0 ? (
          <EmptyState title={empty.title}>{empty.body}</EmptyState>
        ) : (
          <LedgerTable entries={page.entries} caption={caption} />
        )}
        {search.cursor === undefined ? null : (
          <LedgerPager values={values} older nextCursor={page.nextCursor} />
        )}
      </section>
    </>
  );
}
