CREATE TABLE "ledger_hourly_counts" (
	"kind" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"backend" integer NOT NULL,
	"entries" bigint NOT NULL,
	CONSTRAINT "ledger_hourly_counts_pkey" PRIMARY KEY("kind","hour","backend"),
	CONSTRAINT "ledger_hourly_counts_entries_check" CHECK ("ledger_hourly_counts"."entries" >= 0)
);
--> statement-breakpoint
CREATE TABLE "status_counts" (
	"table_name" text NOT NULL,
	"status" text NOT NULL,
	"reason" text NOT NULL,
	"backend" integer NOT NULL,
	"rows" bigint NOT NULL,
	CONSTRAINT "status_counts_pkey" PRIMARY KEY("table_name","status","reason","backend"),
	CONSTRAINT "status_counts_table_check" CHECK ("status_counts"."table_name" in ('tasks', 'effects'))
);
--> statement-breakpoint
CREATE INDEX "ledger_hourly_counts_unfolded_idx" ON "ledger_hourly_counts" USING btree ("hour") WHERE "ledger_hourly_counts"."backend" <> 0;