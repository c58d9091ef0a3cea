CREATE TABLE "ledger_kind_counts" (
	"kind" text NOT NULL,
	"backend" integer NOT NULL,
	"entries" bigint NOT NULL,
	CONSTRAINT "ledger_kind_counts_pkey" PRIMARY KEY("kind","backend"),
	CONSTRAINT "ledger_kind_counts_entries_check" CHECK ("ledger_kind_counts"."entries" >= 0)
);
