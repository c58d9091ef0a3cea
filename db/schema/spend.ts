import { sql } from "drizzle-orm";
import {
  bigint,
  check,
  date,
  doublePrecision,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from "drizzle-orm/pg-core";

/**
 * Model spend per UTC day, agent and model, added to by each model call in the transaction that
 * records it (model.called): the spend screen and the daily caps read these few rows instead of
 * the ledger. One row per key and writing backend (pg_backend_pid), so concurrent workers never
 * wait on a shared counter row; only the sum over backends means anything.
 */
export const spendDaily = pgTable(
  "spend_daily",
  {
    day: date("day", { mode: "string" }).notNull(),
    agent: text("agent").notNull(),
    model: text("model").notNull(),
    backend: integer("backend").notNull(),
    calls: bigint("calls", { mode: "number" }).notNull().default(0),
    /** Calls the price table had no entry for (their cost counted as 0). */
    unpricedCalls: bigint("unpriced_calls", { mode: "number" }).notNull().default(0),
    inputTokens: bigint("input_tokens", { mode: "number" }).notNull().default(0),
    outputTokens: bigint("output_tokens", { mode: "number" }).notNull().default(0),
    cachedInputTokens: bigint("cached_input_tokens", { mode: "number" }).notNull().default(0),
    reasoningTokens: bigint("reasoning_tokens", { mode: "number" }).notNull().default(0),
    cost: doublePrecision("cost").notNull().default(0),
  },
  (t) => [primaryKey({ name: "spend_daily_pkey", columns: [t.day, t.agent, t.model, t.backend] })],
);

/**
 * Model spend per UTC day, agent and the tool the model chose: a call's cost is split evenly
 * over the tools it proposed calling ('' when it answered without a tool call), so summed over
 * tools it is the day's spend. Kept beside spend_daily by the same transaction.
 */
export const spendToolDaily = pgTable(
  "spend_tool_daily",
  {
    day: date("day", { mode: "string" }).notNull(),
    agent: text("agent").notNull(),
    tool: text("tool").notNull(),
    backend: integer("backend").notNull(),
    /** Model answers that proposed this tool (or, for '', answered without one). */
    decisions: bigint("decisions", { mode: "number" }).notNull().default(0),
    cost: doublePrecision("cost").notNull().default(0),
  },
  (t) => [
    primaryKey({ name: "spend_tool_daily_pkey", columns: [t.day, t.agent, t.tool, t.backend] }),
  ],
);

/**
 * Model spend per UTC day, agent and value of the agent's capped input key (spend_caps.key_path,
 * e.g. a customer id): written only for agents whose cap names a key, read by that cap.
 */
export const spendKeyDaily = pgTable(
  "spend_key_daily",
  {
    day: date("day", { mode: "string" }).notNull(),
    agent: text("agent").notNull(),
    keyValue: text("key_value").notNull(),
    backend: integer("backend").notNull(),
    calls: bigint("calls", { mode: "number" }).notNull().default(0),
    cost: doublePrecision("cost").notNull().default(0),
  },
  (t) => [
    primaryKey({
      name: "spend_key_daily_pkey",
      columns: [t.day, t.agent, t.keyValue, t.backend],
    }),
  ],
);

/**
 * tasks.cost summed per agent, UTC day the task was created and its status now, kept by a
 * trigger on tasks whose cost is not 0 (migration 0045): the spend screen's share spent on tasks
 * that ended dead or rejected, without reading the tasks. One row per key and backend.
 */
export const taskSpend = pgTable(
  "task_spend",
  {
    day: date("day", { mode: "string" }).notNull(),
    agent: text("agent").notNull(),
    status: text("status").notNull(),
    backend: integer("backend").notNull(),
    tasks: bigint("tasks", { mode: "number" }).notNull().default(0),
    cost: doublePrecision("cost").notNull().default(0),
  },
  (t) => [primaryKey({ name: "task_spend_pkey", columns: [t.day, t.agent, t.status, t.backend] })],
);

/**
 * The team's price for a model, set on the dashboard: it wins over the worker's configured
 * prices and the shipped defaults for calls recorded after the change. Changes are
 * ledger-recorded as `policy.changed` (scope `model:<id>`).
 */
export const modelPrices = pgTable(
  "model_prices",
  {
    model: text("model").primaryKey(),
    inputPerMTok: doublePrecision("input_per_mtok").notNull(),
    outputPerMTok: doublePrecision("output_per_mtok").notNull(),
    /** Null: cached input costs what other input costs. */
    cachedInputPerMTok: doublePrecision("cached_input_per_mtok"),
    version: integer("version").notNull().default(1),
    updatedBy: text("updated_by").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("model_prices_model_check", sql`length(${t.model}) between 1 and 200`),
    check(
      "model_prices_price_check",
      sql`${t.inputPerMTok} between 0 and 100000 and ${t.outputPerMTok} between 0 and 100000 and (${t.cachedInputPerMTok} is null or ${t.cachedInputPerMTok} between 0 and 100000)`,
    ),
  ],
);

/**
 * An agent's daily model budget (UTC day): over all its tasks, and optionally per value of an
 * input key (`key_path`, e.g. "customerId"). A task whose agent (or key) has spent its day's
 * budget does not call the model: it waits for the next day, or dead-letters with reason
 * `budget`, by `on_exceed`. Set by admins on the policies page, ledger-recorded as
 * `policy.changed` (scope `budget:<agent>`).
 */
export const spendCaps = pgTable(
  "spend_caps",
  {
    agent: text("agent").primaryKey(),
    /** The agent's whole spend per day; null: no cap over the agent. */
    dailyLimit: doublePrecision("daily_limit"),
    /** A dot path into the task input naming the capped key; null: no per-key cap. */
    keyPath: text("key_path"),
    keyDailyLimit: doublePrecision("key_daily_limit"),
    onExceed: text("on_exceed", { enum: ["wait", "dead"] })
      .notNull()
      .default("wait"),
    version: integer("version").notNull().default(1),
    updatedBy: text("updated_by").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("spend_caps_on_exceed_check", sql`${t.onExceed} in ('wait', 'dead')`),
    check(
      "spend_caps_limit_check",
      sql`(${t.dailyLimit} is null or ${t.dailyLimit} > 0) and (${t.keyDailyLimit} is null or ${t.keyDailyLimit} > 0)`,
    ),
    check(
      "spend_caps_key_check",
      sql`(${t.keyPath} is null) = (${t.keyDailyLimit} is null) and (${t.dailyLimit} is not null or ${t.keyDailyLimit} is not null)`,
    ),
  ],
);

export type SpendCapRow = typeof spendCaps.$inferSelect;
export type ModelPriceRow = typeof modelPrices.$inferSelect;
