CREATE TABLE "login_lock_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "login_lock_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"event" text NOT NULL,
	"scope" text NOT NULL,
	"email" text,
	"ip" "inet",
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"until" timestamp with time zone,
	"actor" text,
	CONSTRAINT "login_lock_events_event_check" CHECK ("login_lock_events"."event" in ('locked', 'reset')),
	CONSTRAINT "login_lock_events_scope_check" CHECK ("login_lock_events"."scope" in ('account_address', 'account', 'address')),
	CONSTRAINT "login_lock_events_shape_check" CHECK (("login_lock_events"."event" = 'locked' and "login_lock_events"."until" is not null and "login_lock_events"."actor" is null) or ("login_lock_events"."event" = 'reset' and "login_lock_events"."until" is null and "login_lock_events"."actor" is not null and "login_lock_events"."scope" <> 'account_address')),
	CONSTRAINT "login_lock_events_subject_check" CHECK (("login_lock_events"."scope" = 'address' and "login_lock_events"."email" is null) or ("login_lock_events"."scope" = 'account' and "login_lock_events"."email" is not null and "login_lock_events"."ip" is null) or ("login_lock_events"."scope" = 'account_address' and "login_lock_events"."email" is not null))
);
--> statement-breakpoint
CREATE INDEX "login_lock_events_email_idx" ON "login_lock_events" USING btree ("email","at");--> statement-breakpoint
CREATE INDEX "login_lock_events_ip_idx" ON "login_lock_events" USING btree ("ip","at");