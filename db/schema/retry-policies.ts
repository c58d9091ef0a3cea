import { sql } from "drizzle-orm";
import { check, doublePrecision, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Retry policies by scope: `global` is the default, `agent:<name>` overrides it for one
 * agent; a task's own override lives on the task. Null columns fall through to the next level.
 */
export const retryPolicies = pgTable(
  "retry_policies",
  {
    scope: text("scope").primaryKey(),
    maxAttempts: integer("max_attempts"),
    backoffInitialMs: integer("backoff_initial_ms"),
    backoffFactor: doublePrecision("backoff_factor"),
    backoffMaxMs: integer("backoff_max_ms"),
    attemptTimeoutMs: integer("attempt_timeout_ms"),
    budget: doublePrecision("budget"),
    /**
     * At most this many of the agent's tasks running at once (per concurrency key when its code
     * declares one); null falls through to the code's limit. Agent rows only. Issue 21.
     */
    concurrencyLimit: integer("concurrency_limit"),
    version: integer("version").notNull().default(1),
    updatedBy: text("updated_by").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("retry_policies_scope_check", sql`${t.scope} = 'global' or ${t.scope} ~ '^agent:.+$'`),
    check(
      "retry_policies_global_complete_check",
      sql`${t.scope} <> 'global' or (${t.maxAttempts} is not null and ${t.backoffInitialMs} is not null and ${t.backoffFactor} is not null and ${t.backoffMaxMs} is not null and ${t.attemptTimeoutMs} is not null)`,
    ),
    check(
      "retry_policies_max_attempts_check",
      sql`${t.maxAttempts} is null or ${t.maxAttempts} between 1 and 1000`,
    ),
    check(
      "retry_policies_backoff_check",
      sql`(${t.backoffInitialMs} is null or ${t.backoffInitialMs} >= 0) and (${t.backoffFactor} is null or ${t.backoffFactor} >= 1) and (${t.backoffMaxMs} is null or ${t.backoffMaxMs} >= 0)`,
    ),
    check(
      "retry_policies_timeout_check",
      sql`${t.attemptTimeoutMs} is null or ${t.attemptTimeoutMs} > 0`,
    ),
    check(
      "retry_policies_concurrency_limit_check",
      sql`${t.concurrencyLimit} is null or (${t.scope} <> 'global' and ${t.concurrencyLimit} between 1 and 10000)`,
    ),
    check("retry_policies_budget_check", sql`${t.budget} is null or ${t.budget} >= 0`),
  ],
);

export type RetryPolicyRow = typeof retryPolicies.$inferSelect;
