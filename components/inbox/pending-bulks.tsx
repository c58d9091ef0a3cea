// Money bulk actions waiting for a second reviewer, as the inbox lists them: each one is a
// confirmation a person owes, of a whole frozen set, counted in words that say for whom it waits;
// it opens the bulk's page, where a different reviewer reads it and confirms or declines it and
// its requester (or an admin) may withdraw it. A money bulk says, per currency, how much it would
// move (the preview recorded when it froze, as its page shows it), so the sum is read before the
// page is opened. A withdrawn, declined or confirmed one no longer waits and is not listed.
import Link from "next/link";
import { bulkTitle, waitingText } from "../../lib/domain/bulk-counts";
import type { InboxBulkDto } from "../../lib/server/queries/inbox-bulks";
import { MoneyAmounts } from "../dead-letters/bulk-preview-summary";
import { bulkHref } from "../tasks/bulk-href";
import { Badge } from "../ui/badge";
import { Timestamp } from "../ui/timestamp";

export function PendingBulks({ bulks }: { bulks: InboxBulkDto[] }) {
  if (bulks.length === 0) return null;
  return (
    <section aria-labelledby="inbox-bulks-heading" className="mb-6" data-testid="inbox-bulks">
      <h2 id="inbox-bulks-heading" className="mb-2 text-base font-semibold text-slate-900">
        Bulk actions waiting for a second reviewer
      </h2>
      <ol className="divide-y divide-slate-100 rounded-lg border border-slate-200 bg-white shadow-sm">
        {bulks.map((b) => {
          return (
            <li
              key={b.id}
              data-testid="inbox-bulk"
              data-bulk-id={b.id}
              className="flex flex-wrap items-center gap-2 px-4 py-3 text-sm"
            >
              <Badge tone="warn">Second reviewer</Badge>
              {b.needsYou ? <Badge tone="warn">Needs you</Badge> : null}
              <Link
                href={bulkHref(b.id)}
                className="font-medium text-sky-800 underline-offset-2 hover:underline"
              >
                {bulkTitle(b.action, b.memberCount)}
              </Link>
              <span className="text-slate-700">
                frozen by <span className="break-all">{b.requestedBy}</span>{" "}
                <Timestamp iso={b.createdAt} /> ·{" "}
                <span data-testid="inbox-bulk-waiting">
                  {waitingText(b.memberCount, { mayConfirm: b.needsYou, froze: b.mine })}
                </span>
                {b.mine ? ": you may withdraw it" : b.needsYou ? ": read them and decide" : ""}
              </span>
              {b.amounts ? (
                <div className="basis-full text-slate-700" data-testid="inbox-bulk-money">
                  Would move:
                  <MoneyAmounts amounts={b.amounts} />
                </div>
              ) : null}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
