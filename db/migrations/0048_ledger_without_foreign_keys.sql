ALTER TABLE "ledger_entries" DROP CONSTRAINT "ledger_entries_stream_ledger_streams_stream_fk";
--> statement-breakpoint
ALTER TABLE "ledger_entries" DROP CONSTRAINT "ledger_entries_task_id_tasks_id_fk";
