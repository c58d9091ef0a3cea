CREATE TABLE "ledger_verifications" (
	"name" text PRIMARY KEY NOT NULL,
	"through_id" bigint NOT NULL,
	"through_at" timestamp (3) with time zone,
	"verified_at" timestamp with time zone NOT NULL,
	"mode" text NOT NULL,
	"full_at" timestamp with time zone,
	"ok" boolean NOT NULL,
	"failed_at" timestamp with time zone,
	"problems" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"entries_checked" bigint NOT NULL,
	CONSTRAINT "ledger_verifications_mode_check" CHECK ("ledger_verifications"."mode" in ('full', 'incremental')),
	CONSTRAINT "ledger_verifications_through_check" CHECK ("ledger_verifications"."through_id" >= 0)
);
