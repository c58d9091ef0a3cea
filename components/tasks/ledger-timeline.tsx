// A task's ledger stream, oldest first: every step, tool call, retry, dead letter and review
// decision with who did it. Data is shown as escaped JSON, collapsed until asked for.
import { Fragment } from "react";
import { summarizeEntry } from "../../lib/domain/ledger-summary";
import type { TimelineEntryDto } from "../../lib/server/queries/list-task-timeline";
import type { StatTone } from "../ui/stat";
import { Timestamp } from "../ui/timestamp";
import { bulkHref } from "./bulk-href";
import { JsonDetails } from "./json-view";
import { ledgerKindTone } from "./labels";
import { ShortHash } from "./short-hash";

const DOT: Record<StatTone, string> = {
  neutral: "bg-slate-400",
  info: "bg-sky-500",
  good: "bg-emerald-500",
  warn: "bg-amber-500",
  bad: "bg-rose-600",
};

const KIND_TEXT: Record<StatTone, string> = {
  neutral: "text-slate-900",
  info: "text-sky-900",
  good: "text-emerald-900",
  warn: "text-amber-900",
  bad: "text-rose-900",
};

function isEmpty(data: TimelineEntryDto["data"]): boolean {
  return (
    data === null ||
    (typeof data === "object" && !Array.isArray(data) && Object.keys(data).length === 0)
  );
}

export function LedgerTimeline({
  entries,
  gap,
  effectKeys,
  label = "Ledger entries of this task, oldest first",
}: {
  entries: TimelineEntryDto[];
  /** Entries left out of a long stream, after the entry with seq `afterSeq`, and where to read them. */
  gap: { afterSeq: number; count: number; href: string } | null;
  /** Keys with an effect on this page, so the key links to it. */
  effectKeys: readonly string[];
  /** What the list is, for assistive technology. */
  label?: string;
}) {
  const linked = new Set(effectKeys);
  return (
    <ol aria-label={label} className="relative">
      {entries.map((e, i) => {
        const tone = ledgerKindTone(e.kind);
        return (
          <Fragment key={e.id}>
            <li
              data-seq={e.seq}
              data-kind={e.kind}
              className="relative grid grid-cols-[2.75rem_minmax(0,1fr)] gap-x-3 pb-4 last:pb-0"
            >
              {i < entries.length - 1 ? (
                <span
                  aria-hidden="true"
                  className="absolute top-4 bottom-0 left-[3.55rem] w-px bg-slate-200"
                />
              ) : null}
              <span className="pt-0.5 text-right font-mono text-xs text-slate-600 tabular-nums">
                #{e.seq}
              </span>
              <div className="relative min-w-0 pl-5">
                <span
                  aria-hidden="true"
                  className={`absolute top-1.5 left-0 size-2.5 rounded-full ring-4 ring-white ${DOT[tone]}`}
                />
                <div className="flex flex-wrap items-baseline gap-x-3 gap-y-0.5">
                  <span className={`font-mono text-sm font-medium ${KIND_TEXT[tone]}`}>
                    {e.kind}
                  </span>
                  <span className="max-w-[20rem] truncate text-sm text-slate-700" title={e.actor}>
                    {e.actor}
                  </span>
                  <span className="text-xs text-slate-600">
                    <Timestamp iso={e.at} />
                  </span>
                  {e.key ? (
                    <span className="text-xs text-slate-600">
                      key{" "}
                      {linked.has(e.key) ? (
                        <a
                          href={`#effect-${e.key}`}
                          className="text-sky-800 underline-offset-2 hover:underline"
                        >
                          <ShortHash value={e.key} />
                        </a>
                      ) : (
                        <ShortHash value={e.key} />
                      )}
                    </span>
                  ) : null}
                </div>
                {e.bulk ? (
                  <p className="mt-1 text-sm text-slate-700" data-testid="entry-bulk">
                    Part of{" "}
                    <a
                      href={bulkHref(e.bulk.id)}
                      className="font-medium text-sky-800 underline-offset-2 hover:underline"
                    >
                      bulk action {e.bulk.id.slice(0, 8)}
                    </a>{" "}
                    by <span className="break-all">{e.bulk.requestedBy}</span>
                    {e.bulk.confirmedBy ? (
                      <>
                        , confirmed by <span className="break-all">{e.bulk.confirmedBy}</span>
                      </>
                    ) : null}
                  </p>
                ) : null}
                {e.kind === "effect.rate_limited" ? (
                  <p className="mt-1 text-sm text-slate-700" data-testid="entry-summary">
                    {summarizeEntry(e)}
                  </p>
                ) : null}
                <div className="mt-1">
                  {isEmpty(e.data) ? (
                    <span className="text-xs text-slate-600">No data</span>
                  ) : (
                    <JsonDetails value={e.data} label={`Data of entry ${e.seq}`} summary="Data" />
                  )}
                </div>
              </div>
            </li>
            {gap !== null && e.seq === gap.afterSeq ? (
              <li
                data-gap={gap.count}
                className="relative my-1 mb-5 ml-[3.5rem] rounded-md border border-dashed border-slate-300 bg-slate-50 px-3 py-2 text-sm text-slate-700"
              >
                {`${gap.count.toLocaleString("en-US")} ${gap.count === 1 ? "entry" : "entries"} (#${gap.afterSeq + 1} to #${gap.afterSeq + gap.count}) not shown here. `}
                <a href={gap.href} className="font-medium text-sky-800 underline">
                  Read them
                </a>
              </li>
            ) : null}
          </Fragment>
        );
      })}
    </ol>
  );
}
