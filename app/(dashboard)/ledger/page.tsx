import type { Metadata } from "next";
import Link from "next/link";
import { LedgerTable } from "../../../components/ledger/ledger-table";
import { EmptyState } from "../../../components/ui/empty-state";
import { InvalidAddressNotice } from "../../../components/ui/notice";
import { PageHeader } from "../../../components/ui/page-header";
import { pageViewer } from "../../../lib/auth/page";
import { getDb } from "../../../lib/server/db";
import {
  LEDGER_PAGE_SIZE,
  ledgerSearchSchema,
  listLedgerEntries,
} from "../../../lib/server/queries/list-ledger-entries";
import {
  parseSearchParams,
  type SearchParams,
} from "../../../lib/server/queries/parse-search-params";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Ledger" };

const linkClass =
  "rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-800 shadow-xs hover:bg-slate-50";

function ledgerHref(params: { kind?: string; before?: number }): string {
  const query = new URLSearchParams();
  if (params.kind) query.set("kind", params.kind);
  if (params.before !== undefined) query.set("before", String(params.before));
  const text = query.toString();
  return text ? `/ledger?${text}` : "/ledger";
}

export default async function LedgerPage({
  searchParams,
}: {
  searchParams: Promise<SearchParams>;
}) {
  const viewer = await pageViewer("ledger:read");
  const parsed = parseSearchParams(ledgerSearchSchema, await searchParams);
  const header = (
    <PageHeader
      title="Ledger"
      description="Every step agents took and every decision people made, newest first. Entries are append-only and hash-chained per stream: a correction is a new entry, never an edit."
    />
  );

  if (!parsed.ok) {
    return (
      <>
        {header}
        <InvalidAddressNotice
          title="This ledger address is not valid."
          errors={parsed.errors}
          resetHref="/ledger"
          resetLabel="Show the latest entries"
        />
      </>
    );
  }

  const search = parsed.data;
  const page = await listLedgerEntries(getDb(), viewer, search);

  return (
    <>
      {header}
      <search aria-label="Filter the ledger">
        <form method="get" action="/ledger" className="mb-4 flex flex-wrap items-end gap-3">
          <div>
            <label htmlFor="ledger-kind" className="block text-sm font-medium text-slate-800">
              Kind
            </label>
            <input
              id="ledger-kind"
              name="kind"
              defaultValue={search.kind ?? ""}
              placeholder="e.g. task.enqueued"
              aria-describedby="ledger-kind-hint"
              className="mt-1 w-64 rounded-md border border-slate-300 bg-white px-3 py-1.5 font-mono text-sm shadow-xs"
            />
            <p id="ledger-kind-hint" className="mt-1 text-xs text-slate-600">
              Exact kind; leave empty for every kind.
            </p>
          </div>
          <div className="mb-5 flex gap-2">
            <button
              type="submit"
              className="rounded-md bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-700"
            >
              Filter
            </button>
            {search.kind ? (
              <Link href="/ledger" className={linkClass}>
                Clear
              </Link>
            ) : null}
          </div>
        </form>
      </search>

      <section
        aria-labelledby="ledger-results"
        className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-5"
      >
        <h2 id="ledger-results" className="mb-3 text-base font-semibold text-slate-900">
          {search.kind ? (
            <>
              Entries of kind <code className="font-mono">{search.kind}</code>
            </>
          ) : (
            "Entries"
          )}
          {search.before !== undefined ? (
            <span className="font-normal text-slate-600"> older than #{search.before}</span>
          ) : null}
        </h2>
        {page.entries.length === 0 ? (
          <EmptyState title={search.before !== undefined ? "No older entries" : "No entries match"}>
            {search.kind
              ? "Nothing of this kind has been recorded. Kinds look like task.enqueued or policy.changed."
              : "Entries are appended as agents run and people review their work."}
          </EmptyState>
        ) : (
          <LedgerTable
            entries={page.entries}
            caption={`Ledger entries, newest first, up to ${LEDGER_PAGE_SIZE} per page`}
          />
        )}
        <nav aria-label="Ledger pages" className="mt-4 flex flex-wrap gap-2">
          {search.before !== undefined ? (
            <Link href={ledgerHref({ kind: search.kind })} className={linkClass}>
              Newest entries
            </Link>
          ) : null}
          {page.olderBefore !== null ? (
            <Link
              href={ledgerHref({ kind: search.kind, before: page.olderBefore })}
              className={linkClass}
            >
              Older entries
            </Link>
          ) : null}
        </nav>
      </section>
    </>
  );
}
