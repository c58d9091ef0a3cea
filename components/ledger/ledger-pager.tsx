// "Newest entries" / "Older entries": links that carry the filters and the keyset cursor of the
// page on screen (the live first page's own, so rows pushed off it by new entries come next).
import Link from "next/link";

const linkClass =
  "rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-800 shadow-xs hover:bg-slate-50";

export function LedgerPager({
  values,
  older,
  nextCursor,
}: {
  values: Record<string, string>;
  /** Whether this page is an older one (it has a cursor). */
  older: boolean;
  nextCursor: string | null;
}) {
  const query = new URLSearchParams(values).toString();
  return (
    <nav aria-label="Ledger pages" className="mt-4 flex flex-wrap gap-2">
      {older ? (
        <Link href={query ? `/ledger?${query}` : "/ledger"} className={linkClass}>
          Newest entries
        </Link>
      ) : null}
      {nextCursor !== null ? (
        <Link
          href={`/ledger?${new URLSearchParams({ ...values, cursor: nextCursor })}`}
          className={linkClass}
        >
          Older entries
        </Link>
      ) : null}
    </nav>
  );
}
