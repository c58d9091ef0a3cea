CREATE TABLE "effects" (
	"key" text PRIMARY KEY NOT NULL,
	"task_id" uuid NOT NULL,
	"step_seq" integer NOT NULL,
	"tool" text NOT NULL,
	"intent" jsonb NOT NULL,
	"args" jsonb NOT NULL,
	"fingerprint" text NOT NULL,
	"status" text DEFAULT 'started' NOT NULL,
	"lease_owner" text,
	"lease_expires_at" timestamp with time zone,
	"result" jsonb,
	"error" jsonb,
	"attempts" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "effects_status_check" CHECK ("effects"."status" in ('started', 'succeeded', 'failed')),
	CONSTRAINT "effects_key_check" CHECK ("effects"."key" ~ '^[0-9a-f]{64}$'),
	CONSTRAINT "effects_fingerprint_check" CHECK ("effects"."fingerprint" ~ '^[0-9a-f]{64}$')
);
--> statement-breakpoint
CREATE TABLE "ledger_entries" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ledger_entries_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"stream" text NOT NULL,
	"seq" bigint NOT NULL,
	"at" timestamp (3) with time zone NOT NULL,
	"kind" text NOT NULL,
	"actor" text NOT NULL,
	"task_id" uuid,
	"key" text,
	"data" jsonb NOT NULL,
	"prev_hash" text NOT NULL,
	"hash" text NOT NULL,
	CONSTRAINT "ledger_entries_stream_seq_key" UNIQUE("stream","seq"),
	CONSTRAINT "ledger_entries_seq_check" CHECK ("ledger_entries"."seq" >= 1),
	CONSTRAINT "ledger_entries_kind_check" CHECK ("ledger_entries"."kind" ~ '^[a-z][a-z_]*(\.[a-z][a-z_]*)*$'),
	CONSTRAINT "ledger_entries_hash_check" CHECK ("ledger_entries"."hash" ~ '^[0-9a-f]{64}$'),
	CONSTRAINT "ledger_entries_prev_hash_check" CHECK ("ledger_entries"."prev_hash" ~ '^[0-9a-f]{64}$')
);
--> statement-breakpoint
CREATE TABLE "ledger_streams" (
	"stream" text PRIMARY KEY NOT NULL,
	"head_seq" bigint DEFAULT 0 NOT NULL,
	"head_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ledger_streams_head_seq_check" CHECK ("ledger_streams"."head_seq" >= 0),
	CONSTRAINT "ledger_streams_head_hash_check" CHECK ("ledger_streams"."head_hash" ~ '^[0-9a-f]{64}$')
);
--> statement-breakpoint
CREATE TABLE "retry_policies" (
	"scope" text PRIMARY KEY NOT NULL,
	"max_attempts" integer,
	"backoff_initial_ms" integer,
	"backoff_factor" double precision,
	"backoff_max_ms" integer,
	"attempt_timeout_ms" integer,
	"budget" double precision,
	"version" integer DEFAULT 1 NOT NULL,
	"updated_by" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "retry_policies_scope_check" CHECK ("retry_policies"."scope" = 'global' or "retry_policies"."scope" ~ '^agent:.+$'),
	CONSTRAINT "retry_policies_global_complete_check" CHECK ("retry_policies"."scope" <> 'global' or ("retry_policies"."max_attempts" is not null and "retry_policies"."backoff_initial_ms" is not null and "retry_policies"."backoff_factor" is not null and "retry_policies"."backoff_max_ms" is not null and "retry_policies"."attempt_timeout_ms" is not null)),
	CONSTRAINT "retry_policies_max_attempts_check" CHECK ("retry_policies"."max_attempts" is null or "retry_policies"."max_attempts" between 1 and 1000),
	CONSTRAINT "retry_policies_backoff_check" CHECK (("retry_policies"."backoff_initial_ms" is null or "retry_policies"."backoff_initial_ms" >= 0) and ("retry_policies"."backoff_factor" is null or "retry_policies"."backoff_factor" >= 1) and ("retry_policies"."backoff_max_ms" is null or "retry_policies"."backoff_max_ms" >= 0)),
	CONSTRAINT "retry_policies_timeout_check" CHECK ("retry_policies"."attempt_timeout_ms" is null or "retry_policies"."attempt_timeout_ms" > 0),
	CONSTRAINT "retry_policies_budget_check" CHECK ("retry_policies"."budget" is null or "retry_policies"."budget" >= 0)
);
--> statement-breakpoint
CREATE TABLE "steps" (
	"task_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"status" text DEFAULT 'started' NOT NULL,
	"result" jsonb,
	"effect_key" text,
	"attempt" integer NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "steps_task_id_seq_pk" PRIMARY KEY("task_id","seq"),
	CONSTRAINT "steps_seq_check" CHECK ("steps"."seq" >= 1),
	CONSTRAINT "steps_kind_check" CHECK ("steps"."kind" in ('model', 'tool', 'step', 'sleep')),
	CONSTRAINT "steps_status_check" CHECK ("steps"."status" in ('started', 'completed')),
	CONSTRAINT "steps_completed_check" CHECK (("steps"."status" = 'completed') = ("steps"."completed_at" is not null))
);
--> statement-breakpoint
CREATE TABLE "tasks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"agent" text NOT NULL,
	"input" jsonb NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"dead_reason" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"policy" jsonb,
	"run_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_owner" text,
	"lease_expires_at" timestamp with time zone,
	"enqueue_key" text,
	"last_error" jsonb,
	"result" jsonb,
	"cost" double precision DEFAULT 0 NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"status_changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tasks_status_check" CHECK ("tasks"."status" in ('queued', 'running', 'retry_wait', 'awaiting_approval', 'dead', 'succeeded', 'rejected', 'cancelled')),
	CONSTRAINT "tasks_dead_reason_check" CHECK (("tasks"."status" = 'dead') = ("tasks"."dead_reason" is not null) and ("tasks"."dead_reason" is null or "tasks"."dead_reason" in ('exhausted', 'non_retryable', 'timeout', 'budget', 'outcome_unknown', 'payload_mismatch'))),
	CONSTRAINT "tasks_lease_check" CHECK (("tasks"."status" = 'running') = ("tasks"."lease_owner" is not null and "tasks"."lease_expires_at" is not null)),
	CONSTRAINT "tasks_attempts_check" CHECK ("tasks"."attempts" >= 0),
	CONSTRAINT "tasks_version_check" CHECK ("tasks"."version" >= 1)
);
--> statement-breakpoint
ALTER TABLE "effects" ADD CONSTRAINT "effects_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_stream_ledger_streams_stream_fk" FOREIGN KEY ("stream") REFERENCES "public"."ledger_streams"("stream") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "steps" ADD CONSTRAINT "steps_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "effects_task_idx" ON "effects" USING btree ("task_id","step_seq");--> statement-breakpoint
CREATE INDEX "effects_started_lease_idx" ON "effects" USING btree ("lease_expires_at") WHERE "effects"."status" = 'started';--> statement-breakpoint
CREATE INDEX "effects_tool_created_idx" ON "effects" USING btree ("tool","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "ledger_entries_kind_at_idx" ON "ledger_entries" USING btree ("kind","at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "ledger_entries_at_idx" ON "ledger_entries" USING btree ("at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "ledger_entries_task_idx" ON "ledger_entries" USING btree ("task_id","id") WHERE "ledger_entries"."task_id" is not null;--> statement-breakpoint
CREATE INDEX "ledger_entries_key_idx" ON "ledger_entries" USING btree ("key","id") WHERE "ledger_entries"."key" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "tasks_enqueue_key_idx" ON "tasks" USING btree ("enqueue_key");--> statement-breakpoint
CREATE INDEX "tasks_claim_idx" ON "tasks" USING btree ("run_at","id") WHERE "tasks"."status" in ('queued', 'retry_wait');--> statement-breakpoint
CREATE INDEX "tasks_lease_idx" ON "tasks" USING btree ("lease_expires_at") WHERE "tasks"."status" = 'running';--> statement-breakpoint
CREATE INDEX "tasks_dead_idx" ON "tasks" USING btree ("dead_reason","status_changed_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "tasks"."status" = 'dead';--> statement-breakpoint
CREATE INDEX "tasks_status_created_idx" ON "tasks" USING btree ("status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tasks_agent_created_idx" ON "tasks" USING btree ("agent","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tasks_created_idx" ON "tasks" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);