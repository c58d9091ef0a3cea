DROP INDEX "steps_tool_idx";--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "dead_tool" text;--> statement-breakpoint
CREATE INDEX "tasks_dead_tool_idx" ON "tasks" USING btree ("dead_tool","status_changed_at" DESC NULLS FIRST,"id" DESC NULLS FIRST) WHERE "tasks"."status" = 'dead';