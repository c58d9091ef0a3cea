-- The tasks list's index by status leaves running tasks out too (issue 23, WAL diet): a claim's
-- move to running is a non-HOT update, so it put an entry in this index for every attempt
-- (about 100 bytes of WAL per job). Running tasks are at most the fleet's concurrency: the
-- list's status=running page reads them from their own partial indexes and sorts them.
DROP INDEX "tasks_status_created_idx";--> statement-breakpoint
CREATE INDEX "tasks_status_created_idx" ON "tasks" USING btree ("status","created_at","id") WHERE "tasks"."status" not in ('succeeded', 'running');
