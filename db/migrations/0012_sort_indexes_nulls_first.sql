DROP INDEX "effects_tool_created_idx";--> statement-breakpoint
DROP INDEX "ledger_entries_kind_at_idx";--> statement-breakpoint
DROP INDEX "ledger_entries_at_idx";--> statement-breakpoint
DROP INDEX "tasks_dead_idx";--> statement-breakpoint
DROP INDEX "tasks_status_created_idx";--> statement-breakpoint
DROP INDEX "tasks_agent_created_idx";--> statement-breakpoint
DROP INDEX "tasks_created_idx";--> statement-breakpoint
CREATE INDEX "effects_tool_created_idx" ON "effects" USING btree ("tool","created_at" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "ledger_entries_kind_at_idx" ON "ledger_entries" USING btree ("kind","at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "ledger_entries_at_idx" ON "ledger_entries" USING btree ("at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "tasks_dead_idx" ON "tasks" USING btree ("dead_reason","status_changed_at" DESC NULLS FIRST,"id" DESC NULLS FIRST) WHERE "tasks"."status" = 'dead';--> statement-breakpoint
CREATE INDEX "tasks_status_created_idx" ON "tasks" USING btree ("status","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "tasks_agent_created_idx" ON "tasks" USING btree ("agent","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "tasks_created_idx" ON "tasks" USING btree ("created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);