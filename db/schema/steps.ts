import { sql } from "drizzle-orm";
import {
  check,
  integer,
  jsonb,
  pgTable,
  pgView,
  primaryKey,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";
import { STEP_KINDS } from "../../lib/domain/task-states";
import { inList } from "./check";

/**
 * The per-task journal: one row per durable operation, numbered in call order, but for the tool
 * steps recorded with their effect's result, which the effect keeps (`journal_attempt`, migration
 * 0067). Read the journal through `journalSteps` (the view `journal_steps`).
 */
export const steps = pgTable(
  "steps",
  {
    // No foreign key (migration 0060): its check took a share lock on the task's row, WAL for
    // each step. A task is never deleted once ledgered (trigger tasks_keep_ledgered), and only
    // the worker holding a task's lease writes its steps.
    taskId: uuid("task_id").notNull(),
    seq: integer("seq").notNull(),
    kind: text("kind", { enum: STEP_KINDS }).notNull(),
    name: text("name").notNull(),
    status: text("status", { enum: ["started", "completed"] })
      .notNull()
      .default("started"),
    result: jsonb("result"),
    /** For tool steps: the effect this step performed. */
    effectKey: text("effect_key"),
    attempt: integer("attempt").notNull(),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
    completedAt: timestamp("completed_at", { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.taskId, t.seq] }),
    check("steps_seq_check", sql`${t.seq} >= 1`),
    check("steps_kind_check", sql`${t.kind} in (${inList(STEP_KINDS)})`),
    check("steps_status_check", sql`${t.status} in ('started', 'completed')`),
    check(
      "steps_completed_check",
      sql`(${t.status} = 'completed') = (${t.completedAt} is not null)`,
    ),
  ],
);

export type StepRow = typeof steps.$inferSelect;

/**
 * The journal as readers see it (migration 0067): the rows of `steps`, and the tool steps kept
 * on their effects (`effects.journal_attempt`), which have no row of their own. Same columns.
 */
export const journalSteps = pgView("journal_steps", {
  taskId: uuid("task_id").notNull(),
  seq: integer("seq").notNull(),
  kind: text("kind", { enum: STEP_KINDS }).notNull(),
  name: text("name").notNull(),
  status: text("status", { enum: ["started", "completed"] }).notNull(),
  result: jsonb("result"),
  effectKey: text("effect_key"),
  attempt: integer("attempt").notNull(),
  startedAt: timestamp("started_at", { withTimezone: true }).notNull(),
  completedAt: timestamp("completed_at", { withTimezone: true }),
}).existing();
