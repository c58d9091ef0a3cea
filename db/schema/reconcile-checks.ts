import { sql } from "drizzle-orm";
import {
  bigint,
  check,
  index,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import type { JsonValue } from "../../lib/domain/json";
import { RECONCILE_CHECK_STATUSES } from "../../lib/domain/reconcile-checks";
import { inList } from "./check";
import { effects } from "./effects";
import { tasks } from "./tasks";

/**
 * A reviewer's "check with the provider" for an effect whose outcome is unknown. The web app
 * only records the request; a worker that runs the agent claims it, calls the tool's
 * reconcile and records the answer here and in the task's ledger. The answer never changes the
 * effect: the reviewer still resolves it.
 */
export const reconcileChecks = pgTable(
  "reconcile_checks",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    taskId: uuid("task_id")
      .notNull()
      .references(() => tasks.id),
    effectKey: text("effect_key")
      .notNull()
      .references(() => effects.key),
    /** The task's agent and the effect's tool: a worker claims only checks it can run. */
    agent: text("agent").notNull(),
    tool: text("tool").notNull(),
    status: text("status", { enum: RECONCILE_CHECK_STATUSES }).notNull().default("pending"),
    requestedBy: text("requested_by").notNull(),
    requestedAt: timestamp("requested_at", { withTimezone: true }).notNull().defaultNow(),
    /** The worker asking now, and until when its claim holds (a crashed worker's check is retaken). */
    claimedBy: text("claimed_by"),
    claimExpiresAt: timestamp("claim_expires_at", { withTimezone: true }),
    /** lib/domain/reconcile-checks reconcileAnswerSchema; redacted like the ledger. */
    answer: jsonb("answer").$type<JsonValue>(),
    answeredBy: text("answered_by"),
    answeredAt: timestamp("answered_at", { withTimezone: true }),
  },
  (t) => [
    check(
      "reconcile_checks_status_check",
      sql`${t.status} in (${inList(RECONCILE_CHECK_STATUSES)})`,
    ),
    check(
      "reconcile_checks_answer_check",
      sql`(${t.status} = 'pending') = (${t.answer} is null and ${t.answeredAt} is null)`,
    ),
    // A double click, or two reviewers at once, ask once per pending check.
    uniqueIndex("reconcile_checks_pending_idx").on(t.effectKey).where(sql`${t.status} = 'pending'`),
    index("reconcile_checks_waiting_idx").on(t.id).where(sql`${t.status} = 'pending'`),
    index("reconcile_checks_task_idx").on(t.taskId, t.effectKey, t.id),
  ],
);

export type ReconcileCheckRow = typeof reconcileChecks.$inferSelect;
