// A bulk action's page (its progress, each task's outcome and its own ledger entries): what a
// task's timeline, its rejection and /why link to when an entry was part of one.
export function bulkHref(bulkId: string): string {
  return `/dead-letters/bulk/${bulkId}`;
}
