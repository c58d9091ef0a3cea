CREATE TABLE "reconcile_checks" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "reconcile_checks_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"task_id" uuid NOT NULL,
	"effect_key" text NOT NULL,
	"agent" text NOT NULL,
	"tool" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"requested_by" text NOT NULL,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claimed_by" text,
	"claim_expires_at" timestamp with time zone,
	"answer" jsonb,
	"answered_by" text,
	"answered_at" timestamp with time zone,
	CONSTRAINT "reconcile_checks_status_check" CHECK ("reconcile_checks"."status" in ('pending', 'answered', 'failed')),
	CONSTRAINT "reconcile_checks_answer_check" CHECK (("reconcile_checks"."status" = 'pending') = ("reconcile_checks"."answer" is null and "reconcile_checks"."answered_at" is null))
);
--> statement-breakpoint
ALTER TABLE "reconcile_checks" ADD CONSTRAINT "reconcile_checks_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reconcile_checks" ADD CONSTRAINT "reconcile_checks_effect_key_effects_key_fk" FOREIGN KEY ("effect_key") REFERENCES "public"."effects"("key") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "reconcile_checks_pending_idx" ON "reconcile_checks" USING btree ("effect_key") WHERE "reconcile_checks"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "reconcile_checks_waiting_idx" ON "reconcile_checks" USING btree ("id") WHERE "reconcile_checks"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "reconcile_checks_task_idx" ON "reconcile_checks" USING btree ("task_id","effect_key","id");