import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  index,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { tasks } from "./tasks";

/**
 * A human's yes or no for one gated effect: bound to its key and its payload fingerprint, so
 * it authorizes exactly that payload (a replay that changes the arguments asks again).
 */
export const approvals = pgTable(
  "approvals",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    taskId: uuid("task_id")
      .notNull()
      .references(() => tasks.id),
    effectKey: text("effect_key").notNull(),
    fingerprint: text("fingerprint").notNull(),
    tool: text("tool").notNull(),
    /** The exact (redacted) arguments the reviewer is asked about. */
    args: jsonb("args").notNull(),
    status: text("status", { enum: ["pending", "approved", "rejected"] })
      .notNull()
      .default("pending"),
    requestedAt: timestamp("requested_at", { withTimezone: true }).notNull().defaultNow(),
    /** The tool moves money: a second, different reviewer must approve too. */
    money: boolean("money").notNull().default(false),
    /** Under the two-person rule, the first reviewer's yes (the row stays pending). */
    firstApprovedBy: text("first_approved_by"),
    firstApprovedAt: timestamp("first_approved_at", { withTimezone: true }),
    decidedBy: text("decided_by"),
    decidedAt: timestamp("decided_at", { withTimezone: true }),
    reason: text("reason"),
    /** When the approved effect first started: an approval acts once. */
    usedAt: timestamp("used_at", { withTimezone: true }),
  },
  (t) => [
    check("approvals_status_check", sql`${t.status} in ('pending', 'approved', 'rejected')`),
    check("approvals_decided_check", sql`(${t.status} = 'pending') = (${t.decidedAt} is null)`),
    check(
      "approvals_second_person_check",
      sql`${t.firstApprovedBy} is null or ${t.status} <> 'approved' or ${t.decidedBy} <> ${t.firstApprovedBy}`,
    ),
    uniqueIndex("approvals_key_fingerprint_idx").on(t.effectKey, t.fingerprint),
    index("approvals_pending_idx").on(t.requestedAt).where(sql`${t.status} = 'pending'`),
    index("approvals_task_idx").on(t.taskId),
  ],
);

export type ApprovalRow = typeof approvals.$inferSelect;
