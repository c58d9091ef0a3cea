ALTER TABLE "agent_catalog" ADD COLUMN "concurrency_keyed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "retry_policies" ADD COLUMN "concurrency_limit" integer;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "concurrency_key" text;--> statement-breakpoint
CREATE INDEX "tasks_concurrency_running_idx" ON "tasks" USING btree ("agent","concurrency_key") WHERE "tasks"."status" = 'running';--> statement-breakpoint
CREATE INDEX "tasks_agent_claim_idx" ON "tasks" USING btree ("agent","priority" DESC NULLS FIRST,"run_at","id") WHERE "tasks"."status" in ('queued', 'retry_wait');--> statement-breakpoint
CREATE INDEX "tasks_concurrency_unkeyed_idx" ON "tasks" USING btree ("agent") WHERE "tasks"."concurrency_key" is null and "tasks"."status" in ('queued', 'retry_wait');--> statement-breakpoint
ALTER TABLE "retry_policies" ADD CONSTRAINT "retry_policies_concurrency_limit_check" CHECK ("retry_policies"."concurrency_limit" is null or ("retry_policies"."scope" <> 'global' and "retry_policies"."concurrency_limit" between 1 and 10000));--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_concurrency_key_check" CHECK ("tasks"."concurrency_key" is null or length("tasks"."concurrency_key") <= 200);