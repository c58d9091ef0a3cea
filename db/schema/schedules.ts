import { sql } from "drizzle-orm";
import {
  boolean,
  check,
  index,
  jsonb,
  pgTable,
  text,
  timestamp,
  unique,
  uuid,
} from "drizzle-orm/pg-core";
import type { JsonValue } from "../../lib/domain/json";
import { MISSED_POLICIES, SCHEDULE_SOURCES } from "../../lib/domain/schedule-vocabulary";
import { inList } from "./check";

/**
 * Cron schedules per agent. Workers publish the ones their code declares (source 'code') at
 * start; admins add their own (source 'admin') and pause any. Every worker running the agent
 * ticks the due rows under `for update skip locked` and enqueues each occurrence under the key
 * (schedule id, occurrence), so an occurrence is one task however many workers tick.
 */
export const schedules = pgTable(
  "schedules",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    agent: text("agent").notNull(),
    name: text("name").notNull(),
    cron: text("cron").notNull(),
    timezone: text("timezone").notNull(),
    input: jsonb("input").$type<JsonValue>().notNull(),
    missed: text("missed", { enum: MISSED_POLICIES }).notNull(),
    source: text("source", { enum: SCHEDULE_SOURCES }).notNull(),
    /** Set by an admin; a code schedule's pause survives its workers publishing it again. */
    paused: boolean("paused").notNull().default(false),
    createdBy: text("created_by").notNull(),
    updatedBy: text("updated_by").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    /**
     * The latest occurrence handled: enqueued, or skipped by the missed policy (a resume under
     * `skip` moves it to the moment of resuming). Ticks only move it forward.
     */
    lastOccurrenceAt: timestamp("last_occurrence_at", { withTimezone: true }),
    /** The task of the latest occurrence enqueued. */
    lastTaskId: uuid("last_task_id"),
    /** When the next occurrence is due; null when the expression never fires again. */
    nextOccurrenceAt: timestamp("next_occurrence_at", { withTimezone: true }),
  },
  (t) => [
    unique("schedules_agent_name_unique").on(t.agent, t.name),
    index("schedules_due_idx").on(t.agent, t.nextOccurrenceAt).where(sql`not ${t.paused}`),
    check("schedules_missed_check", sql`${t.missed} in (${inList(MISSED_POLICIES)})`),
    check("schedules_source_check", sql`${t.source} in (${inList(SCHEDULE_SOURCES)})`),
  ],
);

export type ScheduleRow = typeof schedules.$inferSelect;
