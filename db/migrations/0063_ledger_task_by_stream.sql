-- A task's entries are read by its stream, not by task_id (issue 23, WAL diet): the (task_id,
-- at, id) index took an entry for every task entry, 88 bytes of WAL each (0.26 KB of a
-- one-effect job's 8.8). The ledger's task filter walks the task's stream newest first on the
-- (stream, seq) key (within a stream, seq, time and id rise together), and the one kind of
-- entry that names a task from another stream (a bulk action's bulk.member_finished) is kept
-- in an index of its own, which no task entry enters.
DROP INDEX "ledger_entries_task_at_idx";--> statement-breakpoint
CREATE INDEX "ledger_entries_task_elsewhere_idx" ON "ledger_entries" USING btree ("task_id","at","id") WHERE "ledger_entries"."task_id" is not null and "ledger_entries"."stream" <> 'task:' || "ledger_entries"."task_id"::text;--> statement-breakpoint
-- A task with entries cannot be deleted: its stream's, or one naming it from elsewhere (0049
-- asked by task_id, which no index now leads with but the one above).
CREATE OR REPLACE FUNCTION tasks_keep_ledgered() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM ledger_entries WHERE stream = 'task:' || OLD.id::text)
     OR EXISTS (SELECT 1 FROM ledger_entries
                 WHERE task_id = OLD.id AND stream <> 'task:' || task_id::text) THEN
    RAISE EXCEPTION 'task % has ledger entries: it cannot be deleted', OLD.id
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN OLD;
END
$$;
