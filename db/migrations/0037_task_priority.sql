DROP INDEX "tasks_claim_idx";--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "priority" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "tasks_claim_idx" ON "tasks" USING btree ("priority" DESC NULLS FIRST,"run_at","id") WHERE "tasks"."status" in ('queued', 'retry_wait');--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_priority_check" CHECK ("tasks"."priority" between -1000 and 1000);