import { sql } from "drizzle-orm";
import {
  check,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";
import { STEP_KINDS } from "../../lib/domain/task-states";
import { inList } from "./check";
import { tasks } from "./tasks";

/** The per-task journal: one row per durable operation, numbered in call order. */
export const steps = pgTable(
  "steps",
  {
    taskId: uuid("task_id")
      .notNull()
      .references(() => tasks.id),
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
