import { sql } from "drizzle-orm";
import {
  bigint,
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
import { tasks } from "./tasks";

/**
 * The two-person rule: a replay or resume that can reach a `money` effect is first requested
 * by one reviewer and takes effect only when a different reviewer confirms it, on the task
 * version the request was made on.
 */
export const reviewRequests = pgTable(
  "review_requests",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    taskId: uuid("task_id")
      .notNull()
      .references(() => tasks.id),
    action: text("action", { enum: ["replay", "approve"] }).notNull(),
    /** e.g. { fromStep } for a replay; the preview the requester saw. */
    params: jsonb("params").notNull(),
    taskVersion: integer("task_version").notNull(),
    status: text("status", { enum: ["pending", "confirmed", "withdrawn"] })
      .notNull()
      .default("pending"),
    requestedBy: text("requested_by").notNull(),
    requestedAt: timestamp("requested_at", { withTimezone: true }).notNull().defaultNow(),
    decidedBy: text("decided_by"),
    decidedAt: timestamp("decided_at", { withTimezone: true }),
  },
  (t) => [
    check("review_requests_action_check", sql`${t.action} in ('replay', 'approve')`),
    check(
      "review_requests_status_check",
      sql`${t.status} in ('pending', 'confirmed', 'withdrawn')`,
    ),
    check(
      "review_requests_second_person_check",
      sql`${t.decidedBy} is null or ${t.decidedBy} <> ${t.requestedBy} or ${t.status} = 'withdrawn'`,
    ),
    uniqueIndex("review_requests_pending_idx").on(t.taskId).where(sql`${t.status} = 'pending'`),
    index("review_requests_task_idx").on(t.taskId),
  ],
);

export type ReviewRequestRow = typeof reviewRequests.$inferSelect;
