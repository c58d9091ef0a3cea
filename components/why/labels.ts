// Words for the "Why?" page: how each lookup is named and hinted, and what each attempt outcome,
// review action and failure kind of the answer means to a reader.
import type { WhyEffect, WhyQuery } from "../../lib/server/queries/why";
import type { StatTone } from "../ui/stat";

export type Lookup = WhyQuery["by"];

/** In the order the form offers them; the record type keeps the list complete. */
export const LOOKUP_LABEL: Record<Lookup, string> = {
  recipient: "Recipient (email address)",
  messageId: "Message-ID",
  refundId: "Refund id",
  key: "Effect key",
  taskId: "Task id",
};

export const LOOKUPS = Object.keys(LOOKUP_LABEL) as Lookup[];

export function isLookup(value: string): value is Lookup {
  return Object.hasOwn(LOOKUP_LABEL, value);
}

/** How the answer's heading names what was searched: "recipient ada@example.com". */
export const LOOKUP_NOUN: Record<Lookup, string> = {
  recipient: "recipient",
  messageId: "Message-ID",
  refundId: "refund id",
  key: "effect key",
  taskId: "task",
};

export const LOOKUP_EXAMPLE: Record<Lookup, string> = {
  recipient: "ada@example.com",
  messageId: "<key@agent-ledger.local>",
  refundId: "re_123",
  key: "64 hexadecimal digits",
  taskId: "a UUID",
};

type Attempt = WhyEffect["attempts"][number];

export const ATTEMPT_OUTCOME_LABEL: Record<Attempt["outcome"], string> = {
  running: "Running",
  succeeded: "Succeeded",
  failed: "Failed",
  lost: "Worker lost",
  requeued: "Requeued",
  awaiting_approval: "Parked for approval",
  waiting_for_event: "Waited for an event",
  waiting_for_children: "Waited for its child tasks",
  waiting_for_budget: "Waited for its agent's daily budget",
};

export const ATTEMPT_OUTCOME_TONE: Record<Attempt["outcome"], StatTone> = {
  running: "info",
  succeeded: "good",
  failed: "bad",
  lost: "bad",
  requeued: "neutral",
  awaiting_approval: "warn",
  waiting_for_event: "info",
  waiting_for_children: "info",
  waiting_for_budget: "warn",
};

type Review = WhyEffect["reviews"][number];

export const REVIEW_ACTION_LABEL: Record<Review["action"], string> = {
  first_approval: "Gave the first of two approvals",
  approved: "Approved",
  resumed: "Resumed the dead task",
  second_review_requested: "Asked for a second reviewer",
  withdrawn: "Withdrew a request",
  rejected: "Rejected",
  replayed: "Replayed",
  resolved_happened: "Resolved: it happened",
  resolved_not_happened: "Resolved: it did not happen",
  cancelled: "Cancelled the task",
};

export const REVIEW_ACTION_TONE: Record<Review["action"], StatTone> = {
  first_approval: "info",
  approved: "good",
  resumed: "good",
  second_review_requested: "info",
  withdrawn: "neutral",
  rejected: "neutral",
  replayed: "info",
  resolved_happened: "good",
  resolved_not_happened: "warn",
  cancelled: "neutral",
};

/** Failure entries of one effect, by ledger kind; an unlisted kind is shown as recorded. */
export const FAILURE_KIND_LABEL: Record<string, string> = {
  "effect.failed": "The tool failed",
  "effect.outcome_unknown": "Outcome unknown",
  "effect.payload_mismatch": "Same key, different arguments",
  "effect.reconcile_failed": "Asking the provider failed",
};

/** effect.failed's `performed`: whether the provider may have acted. */
export const PERFORMED_TEXT: Record<string, string> = {
  no: "The provider refused before acting: the same key may act again.",
  unknown: "No answer from the provider: it may or may not have acted.",
};
