import { sql } from "drizzle-orm";
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";
import {
  BULK_ACTIONS,
  BULK_STATUSES,
  MEMBER_OUTCOMES,
  MEMBER_STATUSES,
} from "../../lib/domain/bulk-actions";
import type { JsonValue } from "../../lib/domain/json";
import { inList } from "./check";
import { tasks } from "./tasks";

/**
 * A reviewer's bulk action over dead letters, frozen at confirmation: its id is the key the
 * client generated (a double click or a retried request answers the same bulk action), its
 * members are in bulk_action_members. The principals it runs for are kept so the runner acts
 * with exactly the authority of the people who confirmed it.
 */
export const bulkActions = pgTable(
  "bulk_actions",
  {
    id: uuid("id").primaryKey(),
    action: text("action", { enum: BULK_ACTIONS }).notNull(),
    /** { reason } for reject and cancel, { stepName } for replay (null: from the start). */
    params: jsonb("params").$type<JsonValue>().notNull(),
    /** How the set was chosen: { ids } or { filter }, as the reviewer confirmed it. */
    selection: jsonb("selection").$type<JsonValue>().notNull(),
    /** The db-clock instant the confirmation dialog opened: later dead letters are not members. */
    asOf: timestamp("as_of", { withTimezone: true }).notNull(),
    status: text("status", { enum: BULK_STATUSES }).notNull(),
    /** Some member's preview needs two people: the whole set waits for a second reviewer. */
    twoPerson: boolean("two_person").notNull(),
    memberCount: integer("member_count").notNull(),
    requestedBy: text("requested_by").notNull(),
    /** { actor, who, scopes } of the first reviewer. */
    requestedPrincipal: jsonb("requested_principal").$type<JsonValue>().notNull(),
    confirmedBy: text("confirmed_by"),
    confirmedPrincipal: jsonb("confirmed_principal").$type<JsonValue>(),
    confirmedAt: timestamp("confirmed_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
    /** Who withdrew it, or the runner that stopped it; with why, for withdrawn and stopped. */
    endedBy: text("ended_by"),
    endReason: text("end_reason"),
  },
  (t) => [
    check("bulk_actions_action_check", sql`${t.action} in (${inList(BULK_ACTIONS)})`),
    check("bulk_actions_status_check", sql`${t.status} in (${inList(BULK_STATUSES)})`),
    check(
      "bulk_actions_second_person_check",
      sql`${t.confirmedBy} is null or ${t.confirmedBy} <> ${t.requestedBy}`,
    ),
    check("bulk_actions_member_count_check", sql`${t.memberCount} >= 1`),
    index("bulk_actions_created_idx").on(t.createdAt, t.id),
    // The inbox reads and counts the waiting ones on every page (the sidebar's number): only they.
    index("bulk_actions_waiting_idx")
      .on(t.createdAt, t.id)
      .where(sql`${t.status} = 'awaiting_second'`),
  ],
);

/** One task of a bulk action, the version it was frozen at, and what happened to it. */
export const bulkActionMembers = pgTable(
  "bulk_action_members",
  {
    bulkId: uuid("bulk_id")
      .notNull()
      .references(() => bulkActions.id),
    taskId: uuid("task_id")
      .notNull()
      .references(() => tasks.id),
    /** Order in the frozen set (the list's order when it was frozen). */
    position: integer("position").notNull(),
    taskVersion: integer("task_version").notNull(),
    /** Replay: the step the named step resolved to in this task's journal when frozen. */
    fromStep: integer("from_step"),
    status: text("status", { enum: MEMBER_STATUSES }).notNull().default("pending"),
    outcome: text("outcome", { enum: MEMBER_OUTCOMES }),
    /** A person-readable account of the outcome ("taken by user:ann@…", a refusal). */
    detail: text("detail"),
    /** The task's status after this member's action, when it acted. */
    taskStatus: text("task_status"),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.bulkId, t.taskId] }),
    check("bulk_action_members_status_check", sql`${t.status} in (${inList(MEMBER_STATUSES)})`),
    check(
      "bulk_action_members_outcome_check",
      sql`(${t.status} = 'finished') = (${t.outcome} is not null) and (${t.outcome} is null or ${t.outcome} in (${inList(MEMBER_OUTCOMES)}))`,
    ),
    // The runner's queue: members still to act on.
    index("bulk_action_members_pending_idx")
      .on(t.bulkId, t.position)
      .where(sql`${t.status} = 'pending'`),
    index("bulk_action_members_task_idx").on(t.taskId),
  ],
);

export type BulkActionRow = typeof bulkActions.$inferSelect;
export type BulkActionMemberRow = typeof bulkActionMembers.$inferSelect;
