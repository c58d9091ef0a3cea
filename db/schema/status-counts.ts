import { sql } from "drizzle-orm";
import { bigint, check, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

/**
 * Rows of tasks and effects per status (and, for dead tasks, per dead_reason), kept by triggers
 * in the writing transaction (migration 0031): the overview and the metrics scrape read these
 * few rows instead of counting the dead letters, the queue and every status through its index
 * (about 100 ms at 1M tasks), and the counts are exact in any snapshot where they were estimates.
 * One row per key and writing backend (pg_backend_pid), so concurrent writers never wait on a
 * shared counter row; a backend's own row may be negative (it moved tasks another inserted) and
 * only the sum means anything. Rows of backends that are gone are folded into a live one's.
 */
export const statusCounts = pgTable(
  "status_counts",
  {
    tableName: text("table_name").notNull(),
    status: text("status").notNull(),
    /** tasks.dead_reason for dead tasks, '' otherwise. */
    reason: text("reason").notNull(),
    /** The writing backend's pid; 0 for what the migration counted. */
    backend: integer("backend").notNull(),
    rows: bigint("rows", { mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({
      name: "status_counts_pkey",
      columns: [t.tableName, t.status, t.reason, t.backend],
    }),
    check("status_counts_table_check", sql`${t.tableName} in ('tasks', 'effects')`),
  ],
);
