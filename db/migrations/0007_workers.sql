CREATE TABLE "workers" (
	"id" text PRIMARY KEY NOT NULL,
	"host" text NOT NULL,
	"pid" integer NOT NULL,
	"role" text DEFAULT 'worker' NOT NULL,
	"agents" text[] NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"stopped_at" timestamp with time zone,
	CONSTRAINT "workers_role_check" CHECK ("workers"."role" in ('worker', 'alerts'))
);
--> statement-breakpoint
ALTER TABLE "alert_rules" DROP CONSTRAINT "alert_rules_kind_check";--> statement-breakpoint
ALTER TABLE "alert_rules" ADD COLUMN "silent_for_seconds" integer;--> statement-breakpoint
CREATE INDEX "workers_last_seen_idx" ON "workers" USING btree ("last_seen_at");--> statement-breakpoint
ALTER TABLE "alert_rules" ADD CONSTRAINT "alert_rules_silent_for_check" CHECK (("alert_rules"."kind" = 'no_live_worker') = ("alert_rules"."silent_for_seconds" is not null));--> statement-breakpoint
ALTER TABLE "alert_rules" ADD CONSTRAINT "alert_rules_kind_check" CHECK ("alert_rules"."kind" in ('dead_letter', 'outcome_unknown', 'approval_waiting', 'no_live_worker'));