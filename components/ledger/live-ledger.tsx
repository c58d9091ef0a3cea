"use client";
// The ledger's first page, live: seeded from the server render, re-read while the tab is
// visible, so new entries appear on top. Rows keep their keys (entry ids), so an expanded row
// stays expanded. Older pages are a fixed window of history and are not polled.
import type { LedgerPageDto } from "../../lib/server/queries/ledger-entry-dto";
import { LiveStatus } from "../live/live-status";
import { useLiveQuery } from "../live/use-live-query";
import { EmptyState } from "../ui/empty-state";
import { LedgerPager } from "./ledger-pager";
import { LedgerTable } from "./ledger-table";

export function LiveLedger({
  initial,
  values,
  caption,
  empty,
}: {
  initial: LedgerPageDto;
  /** The filters as the address has them. */
  values: Record<string, string>;
  caption: string;
  empty: { title: string; body: string };
}) {
  const live = useLiveQuery<LedgerPageDto>({
    screen: "ledger",
    params: values,
    initialData: initial,
  });
  return (
    <div className="space-y-3">
      <LiveStatus
        updatedAt={live.dataUpdatedAt}
        fetching={live.isFetching}
        error={live.error}
        onRefresh={() => void live.refetch()}
      />
      {live.data.entries.length === 0 ? (
        <EmptyState title={empty.title}>{empty.body}</EmptyState>
      ) : (
        <LedgerTable entries={live.data.entries} caption={caption} />
      )}
      <LedgerPager values={values} older={false} nextCursor={live.data.nextCursor} />
    </div>
  );
}
