import { sql } from "drizzle-orm";
import { pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Tool rate limits (worker/runtime/rate-limit.ts): one row per bucket (`tool` or `tool:key`)
 * holding the times of its most recent calls, oldest first, at most `limit` of them. A call
 * may go to the provider when fewer than `limit` stamps fall inside the last `periodMs`; the
 * row lock of the one statement that checks and stamps serializes every worker's claim.
 * A bucket whose newest stamp is older than any period is deleted (worker/runtime/housekeeping.ts).
 */
export const rateLimits = pgTable("rate_limits", {
  bucket: text("bucket").primaryKey(),
  stamps: timestamp("stamps", { withTimezone: true })
    .array()
    .notNull()
    .default(sql`'{}'::timestamptz[]`),
});

export type RateLimitRow = typeof rateLimits.$inferSelect;
