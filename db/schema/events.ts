import { sql } from "drizzle-orm";
import {
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import type { JsonValue } from "../../lib/domain/json";
import { WAIT_STATUSES } from "../../lib/domain/task-states";
import { inList } from "./check";
import { tasks } from "./tasks";

/**
 * Events sent to waiting tasks (the API, the library, the CLI, a callback link). Each is also an
 * `event.received` ledger entry; the row is what a wait that starts later still finds until
 * `expires_at`.
 */
export const events = pgTable(
  "events",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    name: text("name").notNull(),
    payload: jsonb("payload").$type<{ [key: string]: JsonValue }>().notNull(),
    /** The sender's key: the same key is the same event, delivered once. */
    idempotencyKey: text("idempotency_key"),
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull().defaultNow(),
    /** Past this a wait that starts no longer finds it (EVENT_KEEP_MS after it arrived). */
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    sentBy: text("sent_by").notNull(),
    /** Set for a callback link's event: it reaches only this task. */
    taskId: uuid("task_id").references(() => tasks.id),
  },
  (t) => [
    uniqueIndex("events_idempotency_key_idx").on(t.idempotencyKey),
    check("events_payload_check", sql`jsonb_typeof(${t.payload}) = 'object'`),
    check("events_expiry_check", sql`${t.expiresAt} >= ${t.receivedAt}`),
    // A wait that starts looks for a kept event of its name.
    index("events_name_idx").on(t.name, t.expiresAt),
    // Housekeeping walks expired events in this order, from where its last pass stopped.
    index("events_expires_idx").on(t.expiresAt, t.id),
  ],
);

/** One ctx.waitForEvent step of one task: what it waits for, until when, and what it got. */
export const eventWaits = pgTable(
  "event_waits",
  {
    taskId: uuid("task_id")
      .notNull()
      .references(() => tasks.id),
    seq: integer("seq").notNull(),
    name: text("name").notNull(),
    /** A part the payload must contain (`payload @> match`); {} matches every event of the name. */
    match: jsonb("match").$type<{ [key: string]: JsonValue }>().notNull(),
    status: text("status", { enum: WAIT_STATUSES }).notNull().default("waiting"),
    /** Null: no timeout. */
    deadline: timestamp("deadline", { withTimezone: true }),
    eventId: uuid("event_id").references(() => events.id),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    closedAt: timestamp("closed_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("event_waits_task_seq_idx").on(t.taskId, t.seq),
    // An event reaches a task at most once.
    uniqueIndex("event_waits_task_event_idx").on(t.taskId, t.eventId),
    check("event_waits_status_check", sql`${t.status} in (${inList(WAIT_STATUSES)})`),
    check(
      "event_waits_delivered_check",
      sql`(${t.status} = 'delivered') = (${t.eventId} is not null) and (${t.status} = 'waiting') = (${t.closedAt} is null)`,
    ),
    check("event_waits_match_check", sql`jsonb_typeof(${t.match}) = 'object'`),
    // Delivery finds the open waits of an event's name.
    index("event_waits_open_idx").on(t.name).where(sql`${t.status} = 'waiting'`),
    // Whether any wait took an event: housekeeping asks before deleting one, and so does the
    // foreign key's check on every deleted event (without it, a scan of event_waits each).
    index("event_waits_event_idx").on(t.eventId).where(sql`${t.eventId} is not null`),
  ],
);

export type EventRow = typeof events.$inferSelect;
export type EventWaitRow = typeof eventWaits.$inferSelect;
