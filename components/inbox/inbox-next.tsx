"use client";
// "Next in inbox" on a task page reached from the inbox (?inbox=<the list's filter>): where this
// task stands in that list and a link to the next item waiting for the viewer. It reads the same
// live inbox list, so once an action on this task succeeds (every live query is re-read), the
// task has left the list and the bar offers the next one.
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { Suspense } from "react";
import { z } from "zod";
import { INBOX_KINDS, type InboxKind } from "../../lib/domain/inbox-kinds";
import type { InboxDto, InboxItemDto } from "../../lib/server/queries/list-inbox";
import { useLiveQuery } from "../live/use-live-query";
import {
  INBOX_AFTER_PARAM,
  INBOX_FROM_PARAM,
  inboxHref,
  itemHref,
  KIND_LABEL,
  KIND_PLURAL,
} from "./inbox-links";

const fromSchema = z.enum([...INBOX_KINDS, "all"]);

/**
 * The next item after `index` (-1: from the top), going round to the oldest past the end, and
 * preferring what the viewer can move on; never the item at `index` itself.
 */
function nextItem(items: readonly InboxItemDto[], index: number): InboxItemDto | null {
  const rest = [...items.slice(index + 1), ...items.slice(0, Math.max(0, index))];
  return rest.find((i) => i.needsYou) ?? rest[0] ?? null;
}

function Bar({ taskId }: { taskId: string }) {
  const params = useSearchParams();
  const from = fromSchema.safeParse(params.get(INBOX_FROM_PARAM));
  // Without it the page polls nothing for the inbox.
  if (!from.success) return null;
  return (
    <Position
      taskId={taskId}
      kind={from.data === "all" ? null : from.data}
      after={params.get(INBOX_AFTER_PARAM)}
    />
  );
}

function Position({
  taskId,
  kind,
  after,
}: {
  taskId: string;
  kind: InboxKind | null;
  /** The inbox page it was reached from (null: the first); the live route checks it. */
  after: string | null;
}) {
  // Seeded empty: the inbox list's cached read when reached from it, else read on mount.
  const live = useLiveQuery<InboxDto | null>({
    screen: "inbox",
    params: { kind, after },
    initialData: null,
  });
  const data = live.data;
  const listName = kind ? KIND_PLURAL[kind].toLowerCase() : "everything";
  const index = data ? data.items.findIndex((i) => i.taskId === taskId) : -1;
  const next = data ? nextItem(data.items, index) : null;
  return (
    <nav
      aria-label="Inbox"
      data-testid="inbox-next"
      className="mb-4 flex flex-wrap items-center justify-between gap-3 rounded-md border border-sky-200 bg-sky-50 px-4 py-2 text-sm text-slate-800"
    >
      <p data-testid="inbox-position">
        {data === null
          ? `From your inbox (${listName}).`
          : index >= 0
            ? `Item ${index + 1}${after === null ? "" : " on this page"} of ${data.matching.toLocaleString("en-US")} in your inbox (${listName}).`
            : "Done here: this task no longer waits in your inbox."}
      </p>
      <p className="flex flex-wrap items-center gap-3">
        <Link
          href={inboxHref(kind, after)}
          className="font-medium text-sky-800 underline-offset-2 hover:underline"
        >
          Back to inbox
        </Link>
        {next ? (
          <Link
            href={itemHref(next.taskId, kind, after)}
            className="rounded-md bg-sky-700 px-3 py-1.5 font-medium text-white shadow-xs hover:bg-sky-800"
          >
            Next in inbox: {KIND_LABEL[next.kind].toLowerCase()}, task {next.taskId.slice(0, 8)}
          </Link>
        ) : data !== null ? (
          <span className="text-slate-600">Nothing else waits here.</span>
        ) : null}
      </p>
    </nav>
  );
}

/** Renders nothing unless the address says the page was reached from the inbox. */
export function InboxNext({ taskId }: { taskId: string }) {
  return (
    <Suspense fallback={null}>
      <Bar taskId={taskId} />
    </Suspense>
  );
}
