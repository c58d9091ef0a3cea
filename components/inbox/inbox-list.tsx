"use client";
// The inbox, live: the server render seeds it, then it re-reads the same filter and page while
// the tab is visible and at once after an action. Items are keyed by task, so an item that
// changes kind or leaves the inbox does so in place. Every count on it comes from one read (one
// snapshot), the sidebar's included while this page shows. The product's own undelivered alerts
// are a section of their own, one line per destination, outside the counts of the agents' work.
import { useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect } from "react";
import { AGENT_INBOX_KINDS, type InboxKind } from "../../lib/domain/inbox-kinds";
import type { InboxDto, InboxItemDto } from "../../lib/server/queries/list-inbox";
import { FailingDestinations } from "../alerts/failing-destinations";
import { LiveStatus } from "../live/live-status";
import { useLiveQuery } from "../live/use-live-query";
import { INBOX_COUNTS_KEY } from "../shell/inbox-count";
import { Badge } from "../ui/badge";
import { Duration } from "../ui/duration";
import { EmptyState } from "../ui/empty-state";
import { Timestamp } from "../ui/timestamp";
import { ErrorGroups } from "./error-groups";
import { inboxHref, itemHref, KIND_LABEL, KIND_PLURAL, whatItWaitsFor } from "./inbox-links";
import { PendingBulks } from "./pending-bulks";

const KIND_TONE = {
  confirmation: "warn",
  approval: "info",
  unknown_outcome: "bad",
  dead_letter: "bad",
  system: "neutral",
} as const;

const pillClass = (current: boolean) =>
  `inline-flex items-center gap-2 rounded-md border px-3 py-1.5 text-sm font-medium shadow-xs ${
    current
      ? "border-slate-800 bg-slate-800 text-white"
      : "border-slate-300 bg-white text-slate-800 hover:bg-slate-50"
  }`;

function Filters({ data }: { data: InboxDto }) {
  const options: { kind: InboxKind | null; label: string; count: number }[] = [
    { kind: null, label: "Everything", count: data.counts.total },
    ...AGENT_INBOX_KINDS.map((kind) => ({
      kind,
      label: KIND_PLURAL[kind],
      count: data.counts.waiting[kind],
    })),
  ];
  const system = data.kind === "system";
  return (
    <nav aria-label="Inbox filters" className="flex flex-wrap items-center gap-x-4 gap-y-2">
      <ul className="flex flex-wrap gap-2">
        {options.map((o) => {
          const current = o.kind === data.kind;
          return (
            <li key={o.kind ?? "all"}>
              <Link
                href={inboxHref(o.kind)}
                aria-current={current ? "page" : undefined}
                className={pillClass(current)}
              >
                {o.label}
                <span
                  className="tabular-nums"
                  data-testid={`inbox-filter-count-${o.kind ?? "all"}`}
                >
                  {o.count.toLocaleString("en-US")}
                </span>
              </Link>
            </li>
          );
        })}
      </ul>
      {/* Apart: the product's own tasks are not in "Everything" and its count. */}
      <p className="flex items-center gap-2 text-sm text-slate-600">
        <span>The product’s own:</span>
        <Link
          href={inboxHref("system")}
          aria-current={system ? "page" : undefined}
          className={pillClass(system)}
        >
          {KIND_PLURAL.system}
          <span className="tabular-nums" data-testid="inbox-filter-count-system">
            {data.counts.waiting.system.toLocaleString("en-US")}
          </span>
        </Link>
      </p>
    </nav>
  );
}

/** The page's place in the list and the ways to the next page and back to the oldest. */
function Paging({ data }: { data: InboxDto }) {
  if (data.after === null && data.nextAfter === null) return null;
  return (
    <nav aria-label="Inbox pages" className="mt-4 flex flex-wrap gap-2">
      {data.after !== null ? (
        <Link href={inboxHref(data.kind)} className={pillClass(false)}>
          Back to the oldest
        </Link>
      ) : null}
      {data.nextAfter !== null ? (
        <Link
          href={inboxHref(data.kind, data.nextAfter)}
          className={pillClass(false)}
          data-testid="inbox-next-page"
        >
          Next {data.items.length} waiting
        </Link>
      ) : null}
    </nav>
  );
}

function Item({
  item,
  filter,
  after,
}: {
  item: InboxItemDto;
  filter: InboxKind | null;
  after: string | null;
}) {
  const short = item.taskId.slice(0, 8);
  return (
    <li
      className="flex flex-col gap-2 px-4 py-3 sm:flex-row sm:items-start sm:justify-between"
      data-testid="inbox-item"
      data-task-id={item.taskId}
      data-kb-row={item.taskId}
      data-kind={item.kind}
    >
      <div className="min-w-0 space-y-1">
        <p className="flex flex-wrap items-center gap-2">
          <Badge tone={KIND_TONE[item.kind]}>{KIND_LABEL[item.kind]}</Badge>
          {item.needsYou ? (
            <span data-testid="needs-you">
              <Badge tone="warn">Needs you</Badge>
            </span>
          ) : null}
          <Link
            href={itemHref(item.taskId, filter, after)}
            className="font-mono text-sm font-medium text-sky-800 underline-offset-2 hover:underline"
          >
            Open task {short}
          </Link>
          <span className="text-sm text-slate-600">
            agent <span className="font-medium text-slate-800">{item.agent}</span>
          </span>
        </p>
        <p className="text-sm break-words text-slate-800">{whatItWaitsFor(item)}</p>
        <p className="text-xs text-slate-600">
          {item.actions.length > 0
            ? `You may: ${item.actions.join(", ")}.`
            : "Your role may read this; a reviewer acts on it."}
          {item.kind === "confirmation" && !item.needsYou && item.actions.length > 0
            ? " You asked for this one; someone else must confirm it."
            : null}
        </p>
      </div>
      <p className="shrink-0 text-sm text-slate-700 sm:text-right">
        Waiting <Duration seconds={item.waitedSeconds} />
        <span className="block text-xs text-slate-600">
          since <Timestamp iso={item.since} />
        </span>
      </p>
    </li>
  );
}

export function InboxList({
  initial,
  canRetryAlerts,
}: {
  initial: InboxDto;
  /** The viewer may retry a destination's undelivered alerts (alerts:write). */
  canRetryAlerts: boolean;
}) {
  const live = useLiveQuery<InboxDto>({
    screen: "inbox",
    params: { kind: initial.kind, after: initial.after },
    initialData: initial,
  });
  const data = live.data;
  const filter = data.kind;
  // One count per screen: the sidebar shows this read's counts while the inbox is open.
  const client = useQueryClient();
  useEffect(() => {
    client.setQueryData(INBOX_COUNTS_KEY, data.counts);
  }, [client, data.counts]);
  return (
    <div className="space-y-4">
      <Filters data={data} />
      <LiveStatus
        updatedAt={live.dataUpdatedAt}
        fetching={live.isFetching}
        error={live.error}
        onRefresh={() => void live.refetch()}
      />
      <PendingBulks bulks={data.bulks} />
      {filter === null || filter === "system" ? (
        <FailingDestinations
          alerts={data.alerts}
          canRetry={canRetryAlerts}
          listHref={inboxHref("system")}
        />
      ) : null}
      <ErrorGroups groups={data.errorGroups} mayAct={data.mayBulkTriage} />
      {data.items.length === 0 && data.bulks.length === 0 ? (
        <EmptyState
          title={
            filter
              ? `No ${KIND_PLURAL[filter].toLowerCase()} waiting`
              : "Nothing waits for a person"
          }
        >
          Dead letters, approval requests, second-reviewer confirmations and unknown outcomes appear
          here, oldest first, as soon as they happen.
        </EmptyState>
      ) : data.items.length === 0 ? null : (
        <section aria-labelledby="inbox-items-heading">
          <h2 id="inbox-items-heading" className="mb-2 text-base font-semibold text-slate-900">
            Oldest first
            {data.matching > data.items.length || data.after !== null ? (
              <span className="font-normal text-slate-600" data-testid="inbox-page-summary">
                {" "}
                ({data.items.length} {data.after === null ? "oldest" : "more"} of{" "}
                {data.matching.toLocaleString("en-US")}
                {data.after === null ? "" : ", after the ones before"})
              </span>
            ) : null}
          </h2>
          <ol className="divide-y divide-slate-100 rounded-lg border border-slate-200 bg-white shadow-sm">
            {data.items.map((item) => (
              <Item key={item.taskId} item={item} filter={filter} after={data.after} />
            ))}
          </ol>
          <Paging data={data} />
        </section>
      )}
    </div>
  );
}
