import { jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * What the workers run, published by each worker at start: agent names, their input JSON
 * Schemas and their tools' flags. The web app never loads agent code; it reads this table to
 * show input forms, list agents in the API and apply the two-person rule to `money` tools.
 */
export const agentCatalog = pgTable("agent_catalog", {
  name: text("name").primaryKey(),
  inputSchema: jsonb("input_schema").notNull(),
  /** [{ name, money, providerIdempotent, requiresApproval, sensitive }] */
  tools: jsonb("tools").notNull(),
  policy: jsonb("policy"),
  publishedBy: text("published_by").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

export type AgentCatalogRow = typeof agentCatalog.$inferSelect;
