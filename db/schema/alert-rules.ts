import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  doublePrecision,
  integer,
  pgTable,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";
import { ALERT_DESTINATIONS, ALERT_KINDS, SPEND_ALERT_KINDS } from "../../lib/domain/alerts";
import { inList } from "./check";

/**
 * Admin-defined alert rules. The webhook secret is kept in clear because the worker signs
 * with it (a hash would not do); it never reaches the ledger, a DTO or a page after creation.
 */
export const alertRules = pgTable(
  "alert_rules",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    name: text("name").notNull(),
    kind: text("kind").notNull(),
    /** Filters; null matches every agent / reason. */
    agent: text("agent"),
    reason: text("reason"),
    olderThanMinutes: integer("older_than_minutes"),
    /** no_live_worker: how long no worker may have been seen before the rule fires. */
    silentForSeconds: integer("silent_for_seconds"),
    /** spend_day_over / spend_rate_over: the model spend (money) the rule fires above. */
    threshold: doublePrecision("threshold"),
    destination: text("destination").notNull(),
    url: text("url").notNull(),
    /** `whsec_…` for webhook destinations; null for Slack. */
    secret: text("secret"),
    enabled: boolean("enabled").notNull().default(true),
    version: integer("version").notNull().default(1),
    createdBy: text("created_by").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("alert_rules_kind_check", sql`${t.kind} in (${inList(ALERT_KINDS)})`),
    check(
      "alert_rules_destination_check",
      sql`${t.destination} in (${inList(ALERT_DESTINATIONS)})`,
    ),
    check("alert_rules_url_check", sql`${t.url} ~ '^https?://'`),
    check(
      "alert_rules_secret_check",
      sql`(${t.destination} = 'webhook') = (${t.secret} is not null)`,
    ),
    check(
      "alert_rules_older_than_check",
      sql`(${t.kind} = 'approval_waiting') = (${t.olderThanMinutes} is not null)`,
    ),
    check(
      "alert_rules_threshold_check",
      sql`(${t.kind} in (${inList(SPEND_ALERT_KINDS)})) = (${t.threshold} is not null) and (${t.threshold} is null or ${t.threshold} > 0)`,
    ),
    check(
      "alert_rules_silent_for_check",
      sql`(${t.kind} = 'no_live_worker') = (${t.silentForSeconds} is not null)`,
    ),
  ],
);

export type AlertRuleRow = typeof alertRules.$inferSelect;

/** How far the alert evaluator has read the ledger (one row per evaluator name). */
export const alertCursors = pgTable("alert_cursors", {
  name: text("name").primaryKey(),
  lastEntryId: bigint("last_entry_id", { mode: "number" }).notNull().default(0),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
