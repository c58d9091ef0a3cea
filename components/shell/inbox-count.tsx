"use client";
// The inbox's number beside its link, on every page: what the viewer can move on now ("waiting
// for you"), or, for a role that only reads, everything waiting. Polled while the tab is visible
// and re-read at once after an action; the counts are indexed, never a list. On the inbox itself
// the inbox list's own read feeds it (one count per screen), so it does not poll there. The
// product's own undelivered alerts are not in it: they are the inbox's "Alert deliveries".
import { usePathname } from "next/navigation";
import type { InboxCountsDto } from "../../lib/server/queries/inbox-counts";
import { LIVE_INTERVAL_MS, screenUrl, useLiveQuery } from "../live/use-live-query";

const SCREEN = "inbox-counts";
/** The live query's key: the inbox list writes its counts here while it shows. */
export const INBOX_COUNTS_KEY = ["screen", screenUrl(SCREEN)] as const;

export function InboxCount({
  initial,
  placement = "beside-link",
}: {
  initial: InboxCountsDto;
  /**
   * `beside-link`: over the end of the sidebar's Inbox link. `in-link`: inside a link that says
   * "Inbox" itself (the collapsed sidebar's bar), so the hidden text does not repeat the word.
   */
  placement?: "beside-link" | "in-link";
}) {
  const onInbox = usePathname() === "/inbox";
  const live = useLiveQuery<InboxCountsDto>({
    screen: SCREEN,
    initialData: initial,
    // 0: no polling (react-query); the inbox list sets these counts from its own read.
    intervalMs: onInbox ? 0 : LIVE_INTERVAL_MS,
  });
  const counts = live.data;
  const mine = counts.forYouTotal > 0 || counts.total === 0;
  const n = mine ? counts.forYouTotal : counts.total;
  const title = `${counts.total} waiting in all: ${counts.waiting.dead_letter} dead letters, ${counts.waiting.unknown_outcome} unknown outcomes, ${counts.waiting.approval} approvals, ${counts.waiting.confirmation} second-reviewer confirmations (alert deliveries apart: ${counts.waiting.system})`;
  return (
    <span
      data-testid={placement === "beside-link" ? "inbox-count" : "inbox-count-bar"}
      data-count={n}
      title={title}
      className={`rounded-full px-2 py-0.5 text-xs font-semibold tabular-nums ${
        placement === "beside-link"
          ? "pointer-events-none absolute top-1/2 right-2 -translate-y-1/2"
          : "inline-block"
      } ${
        n === 0
          ? "bg-slate-700 text-slate-200"
          : mine
            ? "bg-amber-300 text-slate-950"
            : "bg-slate-600 text-white"
      }`}
    >
      {placement === "beside-link" ? <span className="sr-only">Inbox: </span> : null}
      {n.toLocaleString("en-US")}
      <span className="sr-only">{mine ? " waiting for you" : " waiting"}</span>
    </span>
  );
}
