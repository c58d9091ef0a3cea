import { sql } from "drizzle-orm";
import {
  check,
  doublePrecision,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { DEAD_REASONS, TASK_STATUSES } from "../../lib/domain/task-states";
import { inList } from "./check";

export const tasks = pgTable(
  "tasks",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    agent: text("agent").notNull(),
    input: jsonb("input").notNull(),
    status: text("status", { enum: TASK_STATUSES }).notNull().default("queued"),
    deadReason: text("dead_reason", { enum: DEAD_REASONS }),
    /** Attempts started so far; compared with the resolved policy's maxAttempts. */
    attempts: integer("attempts").notNull().default(0),
    /**
     * Attempts spent before the current attempt budget started: a resume or replay gives a fresh
     * budget but the attempt numbers keep counting, so the retry decisions use
     * `attempts - attempt_base` and the screens and /why the cumulative number.
     */
    attemptBase: integer("attempt_base").notNull().default(0),
    /** Task-level retry policy override (partial), the first level of policy resolution. */
    policy: jsonb("policy"),
    runAt: timestamp("run_at", { withTimezone: true }).notNull().defaultNow(),
    /**
     * Higher runs first among the tasks runnable now (-1000 to 1000, default 0): an urgent task
     * is claimed before a bulk import's that were enqueued earlier. Set at enqueue.
     */
    priority: integer("priority").notNull().default(0),
    /**
     * The agent's concurrency key for this task (`concurrency.key(input)`; "*" for an agent
     * limited overall), set at a library enqueue given the Agent or by a worker running the agent
     * before it claims the task; null until then. "" marks a key function that failed: the task
     * is claimed and its attempt dead-letters it (run-attempt.ts). Issue 21.
     */
    concurrencyKey: text("concurrency_key"),
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: timestamp("lease_expires_at", { withTimezone: true }),
    /** Makes enqueueing idempotent: the same key returns the first task. */
    enqueueKey: text("enqueue_key"),
    /**
     * The task whose run enqueued this one with ctx.spawn, null for a task enqueued from
     * outside. Set at enqueue, never changed: the task page draws the tree from it.
     */
    parentId: uuid("parent_id"),
    lastError: jsonb("last_error"),
    result: jsonb("result"),
    /** Model cost spent so far, in the policy's budget units. */
    cost: doublePrecision("cost").notNull().default(0),
    /** Optimistic-concurrency guard: every state change checks and bumps it. */
    version: integer("version").notNull().default(1),
    createdBy: text("created_by").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    statusChangedAt: timestamp("status_changed_at", { withTimezone: true }).notNull().defaultNow(),
    /**
     * A dead task's error fingerprint (error_fingerprint of migration 0009 over the recorded
     * message, "" when none), null while not dead. Stored and generated: the dead-letter groups
     * and the fingerprint filter read it instead of running six regular expressions per dead
     * task per read, and no writer sets it.
     */
    deadFingerprint: text("dead_fingerprint").generatedAlwaysAs(
      sql`case when status = 'dead' then coalesce(error_fingerprint(coalesce(last_error ->> 'message', last_error #>> '{}')), '') end`,
    ),
    /**
     * A dead task's last journaled tool step's name (where it was when it stopped), null while
     * not dead or before any tool step. Kept by triggers (migration 0027: on the task's move to
     * dead, and on steps inserted for a dead task), so no writer sets it; the dead-letter tool
     * filter reads it instead of probing every dead task's steps.
     */
    deadTool: text("dead_tool"),
    /**
     * The W3C `traceparent` of whoever enqueued the task (the API's request header, the library
     * caller's active span), null when none came: every attempt's span is its child, so a retry
     * after a crash is another span in the same trace. Set at enqueue, never changed. Issue 22.
     */
    traceparent: text("traceparent"),
  },
  (t) => [
    check("tasks_status_check", sql`${t.status} in (${inList(TASK_STATUSES)})`),
    check(
      "tasks_dead_reason_check",
      sql`(${t.status} = 'dead') = (${t.deadReason} is not null) and (${t.deadReason} is null or ${t.deadReason} in (${inList(DEAD_REASONS)}))`,
    ),
    check(
      "tasks_lease_check",
      sql`(${t.status} = 'running') = (${t.leaseOwner} is not null and ${t.leaseExpiresAt} is not null)`,
    ),
    check("tasks_attempts_check", sql`${t.attempts} >= 0`),
    check("tasks_attempt_base_check", sql`${t.attemptBase} between 0 and ${t.attempts}`),
    check("tasks_version_check", sql`${t.version} >= 1`),
    check("tasks_priority_check", sql`${t.priority} between -1000 and 1000`),
    check(
      "tasks_concurrency_key_check",
      sql`${t.concurrencyKey} is null or length(${t.concurrencyKey}) <= 200`,
    ),
    check(
      "tasks_traceparent_check",
      sql`${t.traceparent} is null or length(${t.traceparent}) = 55`,
    ),
    // Only keyed tasks: most have no key, and a null never conflicts anyway. An insert's ON
    // CONFLICT names the predicate to infer it (enqueue-tasks.ts).
    uniqueIndex("tasks_enqueue_key_idx").on(t.enqueueKey).where(sql`${t.enqueueKey} is not null`),
    // A parent's children, for its page and its joins.
    index("tasks_parent_idx")
      .on(t.parentId, t.createdAt, t.id)
      .where(sql`${t.parentId} is not null`),
    foreignKey({ columns: [t.parentId], foreignColumns: [t.id], name: "tasks_parent_fk" }),
    // A limited agent's claim counts its running tasks per key (concurrency-sql.ts).
    index("tasks_concurrency_running_idx")
      .on(t.agent, t.concurrencyKey)
      .where(sql`${t.status} = 'running'`),
    // Claim the next runnable tasks of each agent, highest priority first: the partial index
    // holds only claimable rows (a waiting task is claimable at its deadline, run_at). Every
    // claim names its agents (task-sql.ts, concurrency-sql.ts); the metrics' queue figures skip
    // through it by agent and priority. The same index without the agent went in 0065.
    index("tasks_agent_claim_idx")
      .on(t.agent, t.priority.desc().nullsFirst(), t.runAt, t.id)
      .where(sql`${t.status} in ('queued', 'retry_wait', 'waiting')`),
    // A keyed agent's worker finds the tasks whose key it has yet to compute.
    index("tasks_concurrency_unkeyed_idx")
      .on(t.agent)
      .where(sql`${t.concurrencyKey} is null and ${t.status} in ('queued', 'retry_wait')`),
    // Reap leases of crashed workers.
    index("tasks_lease_idx").on(t.leaseExpiresAt).where(sql`${t.status} = 'running'`),
    // Dead letters by reason and age.
    index("tasks_dead_idx")
      .on(t.deadReason, t.statusChangedAt.desc().nullsFirst(), t.id.desc().nullsFirst())
      .where(sql`${t.status} = 'dead'`),
    // The dead-letter list newest dead first, unfiltered or by fingerprint.
    index("tasks_dead_at_idx")
      .on(t.statusChangedAt.desc().nullsFirst(), t.id.desc().nullsFirst())
      .where(sql`${t.status} = 'dead'`),
    // The inbox's approvals oldest first (list-inbox.ts; its dead letters walk tasks_dead_at_idx).
    index("tasks_awaiting_at_idx")
      .on(t.statusChangedAt.desc().nullsFirst(), t.id.desc().nullsFirst())
      .where(sql`${t.status} = 'awaiting_approval'`),
    // The dead-letter groups (list-dead-letters.ts): counted, oldest and newest from the index
    // alone, and each shown group's sample message one probe.
    index("tasks_dead_groups_idx")
      .on(t.deadReason, t.deadFingerprint, t.statusChangedAt)
      .where(sql`${t.status} = 'dead'`),
    index("tasks_dead_agent_idx")
      .on(t.agent, t.statusChangedAt.desc().nullsFirst(), t.id.desc().nullsFirst())
      .where(sql`${t.status} = 'dead'`),
    index("tasks_dead_tool_idx")
      .on(t.deadTool, t.statusChangedAt.desc().nullsFirst(), t.id.desc().nullsFirst())
      .where(sql`${t.status} = 'dead'`),
    index("tasks_dead_fingerprint_idx")
      .on(t.deadFingerprint, t.statusChangedAt.desc().nullsFirst(), t.id.desc().nullsFirst())
      .where(sql`${t.status} = 'dead'`),
    // The tasks list by status. Not succeeded tasks: they are most of the table, so that filter
    // walks tasks_created_idx and finds a page within a few rows, and a task's move to succeeded
    // writes one index entry fewer (every status change is a non-HOT update). Not running tasks
    // either (0064): at most the fleet's concurrency, read from the running tasks' own partial
    // indexes and sorted, and the claim's move to running writes one entry fewer.
    index("tasks_status_created_idx")
      .on(t.status, t.createdAt, t.id)
      .where(sql`${t.status} not in ('succeeded', 'running')`),
    index("tasks_agent_created_idx").on(t.agent, t.createdAt, t.id),
    index("tasks_created_idx").on(t.createdAt, t.id),
    // The spend screen's most expensive tasks: walked from the costliest, filtered by window and
    // agent. Only tasks that spent anything are in it, and only a model call changes it.
    index("tasks_cost_idx").on(t.cost.desc(), t.id.desc()).where(sql`${t.cost} > 0`),
  ],
);

export type TaskRow = typeof tasks.$inferSelect;
