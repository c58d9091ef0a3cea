-- An effect's result entry found by its key through a hash index (issue 23, WAL diet): it is
-- read only by equality, and a hash entry holds the key's 4-byte hash code where a B-tree entry
-- held its 64 hex digits (190 bytes of WAL per job).
DROP INDEX "ledger_entries_result_key_idx";--> statement-breakpoint
CREATE INDEX "ledger_entries_result_key_idx" ON "ledger_entries" USING hash ("key") WHERE "ledger_entries"."kind" in ('effect.succeeded', 'outcome.resolved');