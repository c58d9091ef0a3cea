CREATE TABLE "alert_cursors" (
	"name" text PRIMARY KEY NOT NULL,
	"last_entry_id" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alert_rules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"agent" text,
	"reason" text,
	"older_than_minutes" integer,
	"destination" text NOT NULL,
	"url" text NOT NULL,
	"secret" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "alert_rules_kind_check" CHECK ("alert_rules"."kind" in ('dead_letter', 'outcome_unknown', 'approval_waiting')),
	CONSTRAINT "alert_rules_destination_check" CHECK ("alert_rules"."destination" in ('slack', 'webhook')),
	CONSTRAINT "alert_rules_url_check" CHECK ("alert_rules"."url" ~ '^https?://'),
	CONSTRAINT "alert_rules_secret_check" CHECK (("alert_rules"."destination" = 'webhook') = ("alert_rules"."secret" is not null)),
	CONSTRAINT "alert_rules_older_than_check" CHECK (("alert_rules"."kind" = 'approval_waiting') = ("alert_rules"."older_than_minutes" is not null))
);
