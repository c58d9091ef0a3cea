-- The ledger's time-ordered indexes ascending, (…, at, id), read backwards for newest first.
-- Declared (at desc, id desc), every new entry went to the left end of its index (or of its
-- kind's, actor's, task's or tool's range), where a full page splits in half: a split record of
-- half a page, and pages half empty. Ascending, a new entry goes to the right end, where a
-- split leaves the left page full (the rightmost page's fillfactor split, and nbtree's
-- "localized monotonic insertion" split within a range): 380 B less WAL per one-effect job
-- (10.86 -> 10.48 KB, `npm run bench -- --section wal --jobs 2000`) and denser indexes. A
-- backward index scan gives the same order, so every read keeps its plan.
DROP INDEX "ledger_entries_kind_at_idx";--> statement-breakpoint
DROP INDEX "ledger_entries_at_idx";--> statement-breakpoint
DROP INDEX "ledger_entries_actor_at_idx";--> statement-breakpoint
DROP INDEX "ledger_entries_task_at_idx";--> statement-breakpoint
DROP INDEX "ledger_entries_tool_at_idx";--> statement-breakpoint
DROP INDEX "ledger_entries_untooled_at_idx";--> statement-breakpoint
CREATE INDEX "ledger_entries_kind_at_idx" ON "ledger_entries" USING btree ("kind","at","id");--> statement-breakpoint
CREATE INDEX "ledger_entries_at_idx" ON "ledger_entries" USING btree ("at","id");--> statement-breakpoint
CREATE INDEX "ledger_entries_actor_at_idx" ON "ledger_entries" USING btree ("actor","at","id");--> statement-breakpoint
CREATE INDEX "ledger_entries_task_at_idx" ON "ledger_entries" USING btree ("task_id","at","id") WHERE "ledger_entries"."task_id" is not null;--> statement-breakpoint
CREATE INDEX "ledger_entries_tool_at_idx" ON "ledger_entries" USING btree (("data" ->> 'tool'),"at","id") WHERE "ledger_entries"."key" is not null;--> statement-breakpoint
CREATE INDEX "ledger_entries_untooled_at_idx" ON "ledger_entries" USING btree ("at","id") WHERE "ledger_entries"."key" is not null and ("ledger_entries"."data" ->> 'tool') is null;