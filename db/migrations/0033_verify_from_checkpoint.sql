ALTER TABLE "ledger_verifications" DROP CONSTRAINT "ledger_verifications_mode_check";--> statement-breakpoint
ALTER TABLE "ledger_verifications" ADD COLUMN "checkpoint_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "ledger_verifications" ADD CONSTRAINT "ledger_verifications_mode_check" CHECK ("ledger_verifications"."mode" in ('full', 'checkpoint', 'incremental'));