ALTER TABLE "steps" DROP CONSTRAINT "steps_kind_check";--> statement-breakpoint
ALTER TABLE "steps" ADD CONSTRAINT "steps_kind_check" CHECK ("steps"."kind" in ('model', 'tool', 'step', 'sleep', 'spawn', 'wait', 'join'));--> statement-breakpoint
-- ctx.join: the last of the children a parked join waits for (its started join step lists them)
-- to end (succeeded, rejected, cancelled) wakes the parent, parked in `waiting` and not for an
-- event. A plain update: the join also looks again after its park committed and every 30 s, so a
-- wake this misses in a race costs a short delay, never a stuck parent. Fires only for tasks
-- with a parent; an AFTER trigger sees every row its statement changed, so a batch that ends the
-- last two children at once wakes the parent too.
CREATE OR REPLACE FUNCTION wake_joining_parent() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE tasks SET status = 'queued', run_at = now(), version = version + 1,
                   updated_at = now(), status_changed_at = now()
   WHERE id = NEW.parent_id AND status = 'waiting'
     AND NOT EXISTS (SELECT 1 FROM event_waits w WHERE w.task_id = NEW.parent_id AND w.status = 'waiting')
     AND NOT EXISTS (
       SELECT 1 FROM steps s
       CROSS JOIN LATERAL jsonb_array_elements_text(s.result -> 'children') AS c(id)
       JOIN tasks ct ON ct.id = c.id::uuid
       WHERE s.task_id = NEW.parent_id AND s.kind = 'join' AND s.status = 'started'
         AND ct.status NOT IN ('succeeded', 'rejected', 'cancelled'));
  IF FOUND THEN
    PERFORM pg_notify('agent_ledger_tasks', NEW.parent_id::text);
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER tasks_wake_joining_parent AFTER UPDATE OF status ON tasks
  FOR EACH ROW
  WHEN (NEW.parent_id IS NOT NULL AND NEW.status IN ('succeeded', 'rejected', 'cancelled')
        AND OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION wake_joining_parent();
