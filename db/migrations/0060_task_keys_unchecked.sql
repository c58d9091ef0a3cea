-- WAL per job (issue 23's diet): the foreign keys from effects and steps to tasks go. Each
-- checked its row with a FOR KEY SHARE lock on the task's row: a Heap/LOCK record for every
-- effect claimed and every step journaled (about 110 bytes of WAL per one-effect job), and a
-- lookup per row. What they guarded still holds: a task is never deleted once it has an entry
-- (trigger tasks_keep_ledgered, 0049), every task has one from its enqueue, and only the worker
-- holding a task's lease claims its effects and journals its steps.
ALTER TABLE "effects" DROP CONSTRAINT "effects_task_id_tasks_id_fk";
--> statement-breakpoint
ALTER TABLE "steps" DROP CONSTRAINT "steps_task_id_tasks_id_fk";
