// The inbox's words and addresses, shared by the inbox list, the sidebar and "Next in inbox".
import type { InboxItemDto, InboxKind } from "../../lib/server/queries/list-inbox";
import { DEAD_REASON_LABEL } from "../ui/labels";

export const KIND_LABEL: Record<InboxKind, string> = {
  confirmation: "Second reviewer",
  approval: "Approval",
  unknown_outcome: "Unknown outcome",
  dead_letter: "Dead letter",
  system: "Alert delivery",
};

export const KIND_PLURAL: Record<InboxKind, string> = {
  confirmation: "Second reviewer",
  approval: "Approvals",
  unknown_outcome: "Unknown outcomes",
  dead_letter: "Dead letters",
  system: "Alert deliveries",
};

/** The task page's `inbox` parameter: the filter the reviewer came from ("all" for none). */
export const INBOX_FROM_PARAM = "inbox";

/** The inbox, filtered to `kind` (null: everything of the agents'), from page position `after`. */
export function inboxHref(kind: InboxKind | null, after?: string | null): string {
  const query = new URLSearchParams();
  if (kind) query.set("kind", kind);
  if (after) query.set("after", after);
  const text = query.toString();
  return text ? `/inbox?${text}` : "/inbox";
}

/** The task page's `inboxAfter` parameter: the inbox page it was reached from (past the first). */
export const INBOX_AFTER_PARAM = "inboxAfter";

/** The task page, remembering which inbox list and page it was reached from ("Next in inbox"). */
export function itemHref(taskId: string, filter: InboxKind | null, after?: string | null): string {
  const query = new URLSearchParams({ [INBOX_FROM_PARAM]: filter ?? "all" });
  if (after) query.set(INBOX_AFTER_PARAM, after);
  return `/tasks/${taskId}?${query.toString()}`;
}

/** One line on what the item waits for; ledger text goes through React, never as HTML. */
export function whatItWaitsFor(item: InboxItemDto): string {
  switch (item.kind) {
    case "confirmation": {
      const asked =
        item.request?.action === "replay"
          ? `asked for a replay from step ${item.request.fromStep ?? "?"}`
          : item.status === "dead"
            ? "asked to resume the task"
            : `gave the first yes to ${item.tool ?? "a money effect"}`;
      return `${item.firstBy ?? "A reviewer"} ${asked}; a second, different reviewer must confirm.`;
    }
    case "approval":
      return `${item.tool ?? "A gated effect"} waits for a person's yes.`;
    case "unknown_outcome":
      return "An effect started and never reported back: did it happen?";
    case "dead_letter":
    case "system": {
      const reason = item.deadReason ? DEAD_REASON_LABEL[item.deadReason] : "Dead";
      return item.lastError ? `${reason}: ${item.lastError}` : `${reason}.`;
    }
  }
}
