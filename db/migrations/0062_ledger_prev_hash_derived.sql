-- An entry no longer stores the hash it chains onto (issue 23, WAL diet): prev_hash was always
-- the hash of the entry before it in the same stream (or GENESIS_HASH at seq 1), 66 bytes of
-- every entry's row and WAL. The verifier walks each stream in seq order and chains each entry
-- onto the hash it just read; readers that show it (the API, exports, archive files) derive it
-- (lib/server/ledger/prev-hash.ts). The entry hash is unchanged: sha256(prev ‖ canonical(entry)).
-- Dropping a column rewrites nothing: instant at any size.
ALTER TABLE "ledger_entries" DROP CONSTRAINT "ledger_entries_prev_hash_check";--> statement-breakpoint
ALTER TABLE "ledger_entries" DROP COLUMN "prev_hash";
