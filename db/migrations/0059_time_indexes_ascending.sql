-- The time-ordered indexes of the ledger and of the tasks list ascending, (…, at|created_at, id),
-- read backwards for newest first. Declared descending, every new row went to the left end of
-- its index (or of its kind's, actor's, task's, tool's, status's or agent's range), where a full
-- page splits in half: a split record of half a page, and pages half empty. Ascending, a new row
-- goes to the right end, where a split leaves the left page full (the rightmost page's fillfactor
-- split, and nbtree's "localized monotonic insertion" split within a range). A backward index
-- scan gives the same order, so every read keeps its plan. WAL per one-effect job:
-- `npm run bench -- --section wal --jobs 2000`, 10.86 KB before (docs/benchmarks.md).
DROP INDEX "ledger_entries_kind_at_idx";--> statement-breakpoint
DROP INDEX "ledger_entries_at_idx";--> statement-breakpoint
DROP INDEX "ledger_entries_actor_at_idx";--> statement-breakpoint
DROP INDEX "ledger_entries_task_at_idx";--> statement-breakpoint
DROP INDEX "ledger_entries_tool_at_idx";--> statement-breakpoint
DROP INDEX "ledger_entries_untooled_at_idx";--> statement-breakpoint
DROP INDEX "tasks_status_created_idx";--> statement-breakpoint
DROP INDEX "tasks_agent_created_idx";--> statement-breakpoint
DROP INDEX "tasks_created_idx";--> statement-breakpoint
CREATE INDEX "ledger_entries_kind_at_idx" ON "ledger_entries" USING btree ("kind","at","id");--> statement-breakpoint
CREATE INDEX "ledger_entries_at_idx" ON "ledger_entries" USING btree ("at","id");--> statement-breakpoint
CREATE INDEX "ledger_entries_actor_at_idx" ON "ledger_entries" USING btree ("actor","at","id");--> statement-breakpoint
CREATE INDEX "ledger_entries_task_at_idx" ON "ledger_entries" USING btree ("task_id","at","id") WHERE "ledger_entries"."task_id" is not null;--> statement-breakpoint
CREATE INDEX "ledger_entries_tool_at_idx" ON "ledger_entries" USING btree (("data" ->> 'tool'),"at","id") WHERE "ledger_entries"."key" is not null;--> statement-breakpoint
CREATE INDEX "ledger_entries_untooled_at_idx" ON "ledger_entries" USING btree ("at","id") WHERE "ledger_entries"."key" is not null and ("ledger_entries"."data" ->> 'tool') is null;--> statement-breakpoint
CREATE INDEX "tasks_status_created_idx" ON "tasks" USING btree ("status","created_at","id") WHERE "tasks"."status" <> 'succeeded';--> statement-breakpoint
CREATE INDEX "tasks_agent_created_idx" ON "tasks" USING btree ("agent","created_at","id");--> statement-breakpoint
CREATE INDEX "tasks_created_idx" ON "tasks" USING btree ("created_at","id");