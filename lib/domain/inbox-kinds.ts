// What waits for a person in the inbox, by kind. Here (not beside the inbox's query) so the
// client components that offer the filters import no server module.
export const INBOX_KINDS = ["confirmation", "approval", "unknown_outcome", "dead_letter"] as const;
export type InboxKind = (typeof INBOX_KINDS)[number];
