CREATE TABLE "bulk_action_members" (
	"bulk_id" uuid NOT NULL,
	"task_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"task_version" integer NOT NULL,
	"from_step" integer,
	"status" text DEFAULT 'pending' NOT NULL,
	"outcome" text,
	"detail" text,
	"task_status" text,
	"finished_at" timestamp with time zone,
	CONSTRAINT "bulk_action_members_bulk_id_task_id_pk" PRIMARY KEY("bulk_id","task_id"),
	CONSTRAINT "bulk_action_members_status_check" CHECK ("bulk_action_members"."status" in ('pending', 'finished')),
	CONSTRAINT "bulk_action_members_outcome_check" CHECK (("bulk_action_members"."status" = 'finished') = ("bulk_action_members"."outcome" is not null) and ("bulk_action_members"."outcome" is null or "bulk_action_members"."outcome" in ('done', 'waiting', 'taken', 'refused', 'failed')))
);
--> statement-breakpoint
CREATE TABLE "bulk_actions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"action" text NOT NULL,
	"params" jsonb NOT NULL,
	"selection" jsonb NOT NULL,
	"as_of" timestamp with time zone NOT NULL,
	"status" text NOT NULL,
	"two_person" boolean NOT NULL,
	"member_count" integer NOT NULL,
	"requested_by" text NOT NULL,
	"requested_principal" jsonb NOT NULL,
	"confirmed_by" text,
	"confirmed_principal" jsonb,
	"confirmed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "bulk_actions_action_check" CHECK ("bulk_actions"."action" in ('resume', 'reject', 'replay', 'cancel')),
	CONSTRAINT "bulk_actions_status_check" CHECK ("bulk_actions"."status" in ('awaiting_second', 'running', 'done')),
	CONSTRAINT "bulk_actions_second_person_check" CHECK ("bulk_actions"."confirmed_by" is null or "bulk_actions"."confirmed_by" <> "bulk_actions"."requested_by"),
	CONSTRAINT "bulk_actions_member_count_check" CHECK ("bulk_actions"."member_count" >= 1)
);
--> statement-breakpoint
ALTER TABLE "bulk_action_members" ADD CONSTRAINT "bulk_action_members_bulk_id_bulk_actions_id_fk" FOREIGN KEY ("bulk_id") REFERENCES "public"."bulk_actions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bulk_action_members" ADD CONSTRAINT "bulk_action_members_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "bulk_action_members_pending_idx" ON "bulk_action_members" USING btree ("bulk_id","position") WHERE "bulk_action_members"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "bulk_action_members_task_idx" ON "bulk_action_members" USING btree ("task_id");--> statement-breakpoint
CREATE INDEX "bulk_actions_created_idx" ON "bulk_actions" USING btree ("created_at","id");