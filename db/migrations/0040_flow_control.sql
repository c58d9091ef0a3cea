CREATE TABLE "event_waits" (
	"task_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"name" text NOT NULL,
	"match" jsonb NOT NULL,
	"status" text DEFAULT 'waiting' NOT NULL,
	"deadline" timestamp with time zone,
	"event_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"closed_at" timestamp with time zone,
	CONSTRAINT "event_waits_status_check" CHECK ("event_waits"."status" in ('waiting', 'delivered', 'timed_out')),
	CONSTRAINT "event_waits_delivered_check" CHECK (("event_waits"."status" = 'delivered') = ("event_waits"."event_id" is not null) and ("event_waits"."status" = 'waiting') = ("event_waits"."closed_at" is null)),
	CONSTRAINT "event_waits_match_check" CHECK (jsonb_typeof("event_waits"."match") = 'object')
);
--> statement-breakpoint
CREATE TABLE "events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"payload" jsonb NOT NULL,
	"idempotency_key" text,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"sent_by" text NOT NULL,
	"task_id" uuid,
	CONSTRAINT "events_payload_check" CHECK (jsonb_typeof("events"."payload") = 'object'),
	CONSTRAINT "events_expiry_check" CHECK ("events"."expires_at" >= "events"."received_at")
);
--> statement-breakpoint
CREATE TABLE "rate_limits" (
	"bucket" text PRIMARY KEY NOT NULL,
	"stamps" timestamp with time zone[] DEFAULT '{}'::timestamptz[] NOT NULL
);
--> statement-breakpoint
ALTER TABLE "steps" DROP CONSTRAINT "steps_kind_check";--> statement-breakpoint
ALTER TABLE "tasks" DROP CONSTRAINT "tasks_status_check";--> statement-breakpoint
DROP INDEX "tasks_claim_idx";--> statement-breakpoint
ALTER TABLE "agent_catalog" ADD COLUMN "concurrency_keyed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "retry_policies" ADD COLUMN "concurrency_limit" integer;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "concurrency_key" text;--> statement-breakpoint
ALTER TABLE "event_waits" ADD CONSTRAINT "event_waits_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_waits" ADD CONSTRAINT "event_waits_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "event_waits_task_seq_idx" ON "event_waits" USING btree ("task_id","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "event_waits_task_event_idx" ON "event_waits" USING btree ("task_id","event_id");--> statement-breakpoint
CREATE INDEX "event_waits_open_idx" ON "event_waits" USING btree ("name") WHERE "event_waits"."status" = 'waiting';--> statement-breakpoint
CREATE UNIQUE INDEX "events_idempotency_key_idx" ON "events" USING btree ("idempotency_key");--> statement-breakpoint
CREATE INDEX "events_name_idx" ON "events" USING btree ("name","expires_at");--> statement-breakpoint
CREATE INDEX "tasks_concurrency_running_idx" ON "tasks" USING btree ("agent","concurrency_key") WHERE "tasks"."status" = 'running';--> statement-breakpoint
CREATE INDEX "tasks_agent_claim_idx" ON "tasks" USING btree ("agent","priority" DESC NULLS FIRST,"run_at","id") WHERE "tasks"."status" in ('queued', 'retry_wait', 'waiting');--> statement-breakpoint
CREATE INDEX "tasks_concurrency_unkeyed_idx" ON "tasks" USING btree ("agent") WHERE "tasks"."concurrency_key" is null and "tasks"."status" in ('queued', 'retry_wait');--> statement-breakpoint
CREATE INDEX "tasks_claim_idx" ON "tasks" USING btree ("priority" DESC NULLS FIRST,"run_at","id") WHERE "tasks"."status" in ('queued', 'retry_wait', 'waiting');--> statement-breakpoint
ALTER TABLE "retry_policies" ADD CONSTRAINT "retry_policies_concurrency_limit_check" CHECK ("retry_policies"."concurrency_limit" is null or ("retry_policies"."scope" <> 'global' and "retry_policies"."concurrency_limit" between 1 and 10000));--> statement-breakpoint
ALTER TABLE "steps" ADD CONSTRAINT "steps_kind_check" CHECK ("steps"."kind" in ('model', 'tool', 'step', 'sleep', 'spawn', 'wait'));--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_concurrency_key_check" CHECK ("tasks"."concurrency_key" is null or length("tasks"."concurrency_key") <= 200);--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_status_check" CHECK ("tasks"."status" in ('queued', 'running', 'retry_wait', 'awaiting_approval', 'waiting', 'dead', 'succeeded', 'rejected', 'cancelled'));