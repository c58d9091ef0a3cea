-- A tool step read from its effect (issue 23, the WAL diet): the statement that records an
-- effect's result under the task's lease marks the effect as that attempt's journaled step
-- (journal_attempt) instead of inserting a row into steps that repeats the effect's key, tool
-- and result (0.36 KB of WAL per tool step: the row, its speculative-insert confirmation and its
-- key's index entry). Steps written before, and every other kind of step, stay rows of steps.
-- A replay or an input correction from step N detaches the effects from N on (journal_attempt
-- back to null), as it deletes the rows. Readers read journal_steps: both, a row of steps first.
ALTER TABLE "effects" ADD COLUMN "journal_attempt" integer;
--> statement-breakpoint
CREATE VIEW journal_steps AS
  SELECT s.task_id, s.seq, s.kind, s.name, s.status, s.result, s.effect_key, s.attempt,
         s.started_at, s.completed_at
    FROM steps s
  UNION ALL
  SELECT e.task_id, e.step_seq, 'tool'::text, e.tool, 'completed'::text, e.result, e.key,
         e.journal_attempt, e.completed_at, e.completed_at
    FROM effects e
   WHERE e.journal_attempt IS NOT NULL
     AND NOT EXISTS (SELECT 1 FROM steps s WHERE s.task_id = e.task_id AND s.seq = e.step_seq);
--> statement-breakpoint
-- The dead-letter screen's "last tool" (0027): a journaled tool step, whichever table holds it.
CREATE OR REPLACE FUNCTION task_last_tool(task uuid) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT j.name FROM journal_steps j WHERE j.task_id = task AND j.kind = 'tool'
   ORDER BY j.seq DESC LIMIT 1
$$;
