ALTER TABLE "ledger_streams" ADD COLUMN "archived_in" uuid;--> statement-breakpoint
ALTER TABLE "ledger_streams" ADD COLUMN "archived_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "ledger_streams_archived_in_idx" ON "ledger_streams" USING btree ("archived_in","stream" collate "C") WHERE "ledger_streams"."archived_in" is not null;--> statement-breakpoint
ALTER TABLE "ledger_streams" ADD CONSTRAINT "ledger_streams_archived_check" CHECK (("ledger_streams"."archived_in" is null) = ("ledger_streams"."archived_at" is null));