import { boolean, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import type { JsonValue } from "../../lib/domain/json";

/**
 * What the workers run, published by each worker at start: agent names, their input JSON
 * Schemas, their tools' flags and the retry policy their code declares. The web app never loads
 * agent code; it reads this table to show input forms, list agents in the API, apply the
 * two-person rule to `money` tools and show which retry policy is in force.
 */
export const agentCatalog = pgTable("agent_catalog", {
  name: text("name").primaryKey(),
  inputSchema: jsonb("input_schema").notNull(),
  /** [{ name, money, providerIdempotent, reconcile, requiresApproval, sensitive, source }] */
  tools: jsonb("tools").notNull(),
  /**
   * The retry policy the agent's code declares (a partial policy: the fields it sets), or null.
   * It sits between the admin's agent row and the global row when a policy is resolved.
   */
  policy: jsonb("policy").$type<JsonValue>(),
  /**
   * The code's concurrency limit counts per key (`concurrency.key`) rather than over all the
   * agent's tasks; the limit itself is `policy.concurrencyLimit`. Issue 21.
   */
  concurrencyKeyed: boolean("concurrency_keyed").notNull().default(false),
  /**
   * The agent code's version: what `defineAgent({ version })` says, else `sha-` and a short hash
   * of this entry and the run function's source. Null for rows published before migration 0036.
   */
  version: text("version"),
  publishedBy: text("published_by").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

export type AgentCatalogRow = typeof agentCatalog.$inferSelect;
