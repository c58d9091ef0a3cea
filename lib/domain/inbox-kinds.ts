// What waits for a person in the inbox, by kind. Here (not beside the inbox's query) so the
// client components that offer the filters import no server module.
export const INBOX_KINDS = [
  "confirmation",
  "approval",
  "unknown_outcome",
  "dead_letter",
  "system",
] as const;
export type InboxKind = (typeof INBOX_KINDS)[number];

/**
 * The kinds the inbox's total and the sidebar count: the agents' work. `system` (the product's
 * own dead tasks: alert deliveries) has its own section and count and is listed only when asked
 * for (?kind=system), so a receiver that is down cannot bury the agents' dead letters.
 */
export const AGENT_INBOX_KINDS = [
  "confirmation",
  "approval",
  "unknown_outcome",
  "dead_letter",
] as const satisfies readonly InboxKind[];
