-- One home for "a parked join may go on": the trigger that wakes a parent when its last joined
-- child ends (0041), the join's own look-again after its park commits (worker/runtime/join.ts)
-- and the test harness's "settled" (worker/testing/task-report.ts) each spelled the question
-- out. join_ready(parent): the parent has a started join step and every child it lists has
-- ended (succeeded, rejected, cancelled). A parent waiting for anything else (an event, a
-- sleep) is no longer woken by a child's end: it had no join to go on with.
CREATE OR REPLACE FUNCTION join_ready(parent uuid) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (
           SELECT 1 FROM steps s
            WHERE s.task_id = parent AND s.kind = 'join' AND s.status = 'started')
     AND NOT EXISTS (
           SELECT 1 FROM steps s
           CROSS JOIN LATERAL jsonb_array_elements_text(s.result -> 'children') AS c(id)
           JOIN tasks ct ON ct.id = c.id::uuid
            WHERE s.task_id = parent AND s.kind = 'join' AND s.status = 'started'
              AND ct.status NOT IN ('succeeded', 'rejected', 'cancelled'))
$$;--> statement-breakpoint
-- Wakes a parent parked on a join that may go on; true when it did. Notifies the workers.
CREATE OR REPLACE FUNCTION wake_joined_parent(parent uuid) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  UPDATE tasks SET status = 'queued', run_at = now(), version = version + 1,
                   updated_at = now(), status_changed_at = now()
   WHERE id = parent AND status = 'waiting'
     AND NOT EXISTS (SELECT 1 FROM event_waits w WHERE w.task_id = parent AND w.status = 'waiting')
     AND join_ready(parent);
  IF FOUND THEN
    PERFORM pg_notify('agent_ledger_tasks', parent::text);
    RETURN true;
  END IF;
  RETURN false;
END
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION wake_joining_parent() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM wake_joined_parent(NEW.parent_id);
  RETURN NULL;
END
$$;
