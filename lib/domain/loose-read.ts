// Readers of recorded data whose shape nothing guarantees (an entry's data, written by any version
// of the runtime): each answers null for anything but what it reads, never throws.

/** An entry as the readers of its data need it. */
export type EntryLike = { kind: string; at: Date | string; actor?: string | null; data: unknown };

export const recordOf = (v: unknown): Record<string, unknown> | null =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

export const numberOf = (v: unknown): number | null =>
  typeof v === "number" && Number.isFinite(v) ? v : null;

export const stringOf = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** ISO 8601 of a time read from the database (a Date) or from JSON (already a string). */
export const isoOf = (at: Date | string): string =>
  typeof at === "string" ? at : at.toISOString();
