// A point in time as the API and CLI accept it: ISO 8601 with a zone, within years 1–9999 UTC.
// PostgreSQL refuses year 0, and JavaScript writes years past 9999 as "+010000-…", which it
// cannot parse either: such a time is a clear 400, not a database error.
import { z } from "zod";

const inRange = (date: Date) => {
  const year = date.getUTCFullYear();
  return !Number.isNaN(date.getTime()) && year >= 1 && year <= 9999;
};

const RANGE_ERROR = "must be between the years 1 and 9999 (UTC).";

/** ISO 8601 with a zone (2025-01-31T09:00:00Z), as a Date. */
export const isoInstant = z.iso
  .datetime({
    offset: true,
    error: "must be an ISO 8601 date and time, e.g. 2025-01-31T09:00:00Z.",
  })
  .transform((text) => new Date(text))
  .refine(inRange, { error: RANGE_ERROR });

/** The same, or a date alone (read as UTC midnight), for people typing at a terminal. */
export const isoInstantOrDate = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()], {
    error: "must be an ISO 8601 time with a zone (2025-06-01T09:00:00Z) or a date (2025-06-01)",
  })
  .transform((s) => new Date(s.length === 10 ? `${s}T00:00:00Z` : s))
  .refine(inRange, { error: RANGE_ERROR });
