import { sql } from "drizzle-orm";
import { check, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * An admin's rate limit for a tool, in place of the one its code declares (or where it declares
 * none): every worker applies it to calls of attempts claimed after the change, in the same
 * bucket the code's limit counts in (per key when the code's `rateLimit.key` gives one). No row:
 * the code's limit, if any. Changes are ledger-recorded as `policy.changed` (scope `tool:<name>`).
 */
export const toolRateLimits = pgTable(
  "tool_rate_limits",
  {
    tool: text("tool").primaryKey(),
    limit: integer("limit").notNull(),
    periodMs: integer("period_ms").notNull(),
    version: integer("version").notNull().default(1),
    updatedBy: text("updated_by").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("tool_rate_limits_limit_check", sql`${t.limit} between 1 and 10000`),
    check("tool_rate_limits_period_check", sql`${t.periodMs} between 1 and 86400000`),
    check("tool_rate_limits_tool_check", sql`length(${t.tool}) between 1 and 200`),
  ],
);

export type ToolRateLimitRow = typeof toolRateLimits.$inferSelect;
