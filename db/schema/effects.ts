import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { EFFECT_STATUSES } from "../../lib/domain/task-states";
import { inList } from "./check";

/**
 * One side effect, unique by its intent-derived key. The primary key is the promise:
 * claiming the key and acting twice cannot both succeed.
 */
export const effects = pgTable(
  "effects",
  {
    key: text("key").primaryKey(),
    // No foreign key (migration 0060): its check took a share lock on the task's row, WAL for
    // each claim. A task is never deleted once ledgered (trigger tasks_keep_ledgered), and only
    // the worker holding a task's lease claims its effects.
    taskId: uuid("task_id").notNull(),
    stepSeq: integer("step_seq").notNull(),
    tool: text("tool").notNull(),
    intent: jsonb("intent").notNull(),
    /** Redacted arguments as first performed, and their sha256 fingerprint. */
    args: jsonb("args").notNull(),
    fingerprint: text("fingerprint").notNull(),
    status: text("status", { enum: EFFECT_STATUSES }).notNull().default("started"),
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: timestamp("lease_expires_at", { withTimezone: true }),
    result: jsonb("result"),
    error: jsonb("error"),
    attempts: integer("attempts").notNull().default(1),
    /**
     * The task attempt that journaled this effect as its tool step (migration 0067): set with the
     * result, under the task's lease, so the step needs no row of its own in `steps` (the view
     * `journal_steps` reads both). Null: not a journaled step, or detached by a replay or an
     * input correction from an earlier step on.
     */
    journalAttempt: integer("journal_attempt"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    completedAt: timestamp("completed_at", { withTimezone: true }),
  },
  (t) => [
    check("effects_status_check", sql`${t.status} in (${inList(EFFECT_STATUSES)})`),
    check("effects_key_check", sql`${t.key} ~ '^[0-9a-f]{64}$'`),
    check("effects_fingerprint_check", sql`${t.fingerprint} ~ '^[0-9a-f]{64}$'`),
    index("effects_task_idx").on(t.taskId, t.stepSeq),
    // Find in-flight effects whose lease ran out (outcome unknown).
    index("effects_started_lease_idx").on(t.leaseExpiresAt).where(sql`${t.status} = 'started'`),
    // No index by status (counts come from status_counts) nor by tool: nothing reads them, and
    // each cost an entry per insert and per completion (0050).
    // "Why did it send that?" by recipient, Message-ID or refund id (lib/server/queries/why.ts):
    // the paths the email and payment tools record, so a lookup is an index probe per path.
    // Only the effects that have the path: an equality implies it, and every other tool's
    // effects (most) write no entry.
    index("effects_args_to_idx")
      .on(sql`lower(${t.args} ->> 'to')`)
      .where(sql`lower(${t.args} ->> 'to') is not null`),
    index("effects_intent_to_idx")
      .on(sql`lower(${t.intent} ->> 'to')`)
      .where(sql`lower(${t.intent} ->> 'to') is not null`),
    // The few effects addressed to several recipients: their list is searched row by row.
    index("effects_args_to_list_idx")
      .on(t.createdAt)
      .where(sql`jsonb_typeof(${t.args} -> 'to') = 'array'`),
    index("effects_message_id_idx")
      .on(sql`(${t.result} ->> 'messageId')`)
      .where(sql`(${t.result} ->> 'messageId') is not null`),
    index("effects_refund_id_idx")
      .on(sql`(${t.result} ->> 'refundId')`)
      .where(sql`(${t.result} ->> 'refundId') is not null`),
    // The ledger's free text matches any top-level intent value (`intent @? '$.* ? (@ == q)'`):
    // jsonb_ops (not jsonb_path_ops) indexes the `.*` accessor, so that is a probe too, and the
    // whole match is one BitmapOr of indexes instead of a scan of every effect.
    index("effects_intent_values_idx").using("gin", t.intent),
  ],
);

export type EffectRow = typeof effects.$inferSelect;
