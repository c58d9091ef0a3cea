import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** What a worker process is for: the fleet, or the web server's alert-delivery-only worker. */
export const WORKER_ROLES = ["worker", "alerts"] as const;
export type WorkerRole = (typeof WORKER_ROLES)[number];

/**
 * Worker presence: each worker upserts its row at start, touches `last_seen_at` with every
 * heartbeat tick and sets `stopped_at` on a graceful stop. Task leases cannot say "no worker
 * is alive" (an idle fleet holds none); this can, for the `no_live_worker` alert.
 */
export const workers = pgTable(
  "workers",
  {
    id: text("id").primaryKey(),
    host: text("host").notNull(),
    pid: integer("pid").notNull(),
    /** `alerts`: the web server's delivery worker, which never counts as a live worker. */
    role: text("role").notNull().default("worker"),
    agents: text("agents").array().notNull(),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull().defaultNow(),
    stoppedAt: timestamp("stopped_at", { withTimezone: true }),
  },
  (t) => [
    check("workers_role_check", sql`${t.role} in ('worker', 'alerts')`),
    index("workers_last_seen_idx").on(t.lastSeenAt),
  ],
);

export type WorkerRow = typeof workers.$inferSelect;
