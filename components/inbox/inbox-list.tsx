"use client";
// The inbox, live: the server render seeds it, then it re-reads the same filter while the tab is
// visible and at once after an action. Items are keyed by task, so an item that changes kind or
// leaves the inbox does so in place.
import Link from "next/link";
import { INBOX_KINDS, type InboxKind } from "../../lib/domain/inbox-kinds";
import type { InboxDto, InboxItemDto } from "../../lib/server/queries/list-inbox";
import { LiveStatus } from "../live/live-status";
import { useLiveQuery } from "../live/use-live-query";
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
} as const;

function Filters({ data }: { data: InboxDto }) {
  const options: { kind: InboxKind | null; label: string; count: number }[] = [
    { kind: null, label: "Everything", count: data.counts.total },
    ...INBOX_KINDS.map((kind) => ({
      kind,
      label: KIND_PLURAL[kind],
      count: data.counts.waiting[kind],
    })),
  ];
  return (
    <nav aria-label="Inbox filters">
      <ul className="flex flex-wrap gap-2">
        {options.map((o) => {
          const current = o.kind === data.kind;
          return (
            <li key={o.kind ?? "all"}>
              <Link
                href={inboxHref(o.kind)}
                aria-current={current ? "page" : undefined}
                className={`inline-flex items-center gap-2 rounded-md border px-3 py-1.5 text-sm font-medium shadow-xs ${
                  current
                    ? "border-slate-800 bg-slate-800 text-white"
                    : "border-slate-300 bg-white text-slate-800 hover:bg-slate-50"
                }`}
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
    </nav>
  );
}

function Item({ item, filter }: { item: InboxItemDto; filter: InboxKind | null }) {
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
            href={itemHref(item.taskId, filter)}
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

export function InboxList({ initial }: { initial: InboxDto }) {
  const live = useLiveQuery<InboxDto>({
    screen: "inbox",
    params: { kind: initial.kind },
    initialData: initial,
  });
  const data = live.data;
  const filter = data.kind;
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
      <ErrorGroups groups={data.errorGroups} />
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
            {data.matching > data.items.length ? (
              <span className="font-normal text-slate-600">
                {" "}
                (the {data.items.length} oldest of {data.matching.toLocaleString("en-US")})
              </span>
            ) : null}
          </h2>
          <ol className="divide-y divide-slate-100 rounded-lg border border-slate-200 bg-white shadow-sm">
            {data.items.map((item) => (
              <Item key={item.taskId} item={item} filter={filter} />
            ))}
          </ol>
        </section>
      )}
    </div>
  );
}
