// What a bulk replay or resume would do, added up over its set: effects that act, are
// deduplicated, have an unknown outcome, move money, and the money summed per currency. The
// first reviewer reads it in the confirmation dialog; the second on the bulk's page, as it was
// recorded when the set froze. Reasons come from agents' tool names: rendered as text only.
import type { BulkPreview } from "../../lib/domain/bulk-preview";
import { formatMoney, type MoneyTotals } from "../../lib/domain/money";

const n = (v: number) => v.toLocaleString("en-US");

/** "USD 12,345.67 in 80 refunds", one line per currency, and the effects whose amount is unknown. */
export function MoneyAmounts({ amounts }: { amounts: MoneyTotals }) {
  if (amounts.totals.length === 0 && amounts.unknown === 0) return null;
  return (
    <ul className="mt-1 space-y-0.5" aria-label="Money it would move, per currency">
      {amounts.totals.map((t) => (
        <li
          key={t.currency}
          data-testid="bulk-money-total"
          data-currency={t.currency}
          className="font-medium text-slate-900 tabular-nums"
        >
          {formatMoney(t.minor, t.currency)}{" "}
          <span className="font-normal text-slate-700">
            in {n(t.effects)} effect{t.effects === 1 ? "" : "s"}
          </span>
        </li>
      ))}
      {amounts.unknown > 0 ? (
        <li data-testid="bulk-money-unknown" className="text-slate-700">
          {n(amounts.unknown)} more whose amount is not known (the tool does not declare its amount,
          or the arguments do not say it): open a task to read its arguments
        </li>
      ) : null}
    </ul>
  );
}

export function BulkPreviewSummary({
  preview,
  heading = "What this would do",
}: {
  preview: BulkPreview;
  heading?: string;
}) {
  const p = preview;
  return (
    <div
      className="rounded-md border border-slate-200 bg-white p-3 text-sm"
      data-testid="bulk-preview"
    >
      <p className="font-medium">{heading}</p>
      <ul className="mt-1 list-disc pl-5">
        <li>{n(p.effects.act)} effects would act</li>
        <li>{n(p.effects.dedupe)} would be deduplicated (their stored result returns)</li>
        <li>{n(p.effects.unknown)} have an unknown outcome</li>
        {p.effects.inFlight > 0 ? <li>{n(p.effects.inFlight)} are in flight elsewhere</li> : null}
        <li>
          {n(p.effects.money)} move money
          <MoneyAmounts amounts={p.amounts} />
        </li>
        {p.skipped > 0 ? (
          <li>{n(p.skipped)} tasks cannot take this action and will be refused</li>
        ) : null}
      </ul>
      {p.twoPerson ? (
        <div className="mt-2 text-amber-950">
          <p className="font-medium">
            {n(p.twoPersonTasks)} tasks need two people: the whole set waits for a second, different
            reviewer to confirm.
          </p>
          {p.reasons.length > 0 ? (
            <ul className="mt-1 list-disc pl-5" aria-label="Why two people">
              {p.reasons.map((r) => (
                <li key={r.reason}>
                  {r.reason} ({n(r.tasks)} task{r.tasks === 1 ? "" : "s"})
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
