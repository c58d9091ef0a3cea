CREATE TABLE "schedules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"agent" text NOT NULL,
	"name" text NOT NULL,
	"cron" text NOT NULL,
	"timezone" text NOT NULL,
	"input" jsonb NOT NULL,
	"missed" text NOT NULL,
	"source" text NOT NULL,
	"paused" boolean DEFAULT false NOT NULL,
	"created_by" text NOT NULL,
	"updated_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_occurrence_at" timestamp with time zone,
	"last_task_id" uuid,
	"next_occurrence_at" timestamp with time zone,
	CONSTRAINT "schedules_agent_name_unique" UNIQUE("agent","name"),
	CONSTRAINT "schedules_missed_check" CHECK ("schedules"."missed" in ('skip', 'run-once', 'run-each')),
	CONSTRAINT "schedules_source_check" CHECK ("schedules"."source" in ('code', 'admin'))
);
--> statement-breakpoint
CREATE INDEX "schedules_due_idx" ON "schedules" USING btree ("agent","next_occurrence_at") WHERE not "schedules"."paused";