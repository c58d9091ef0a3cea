-- A parent's last open children ending in transactions that commit at the same time each saw
-- the others still open (none had committed), so none woke the parent, and it slept until its
-- 30 s look-again (JOIN_RECHECK_MS). spawn-crash.test met it as a 30 s stall, twice in one run.
-- A child's end that does not wake its parked parent now notifies the workers on
-- agent_ledger_joins; the notification is delivered once the child's end commits, and the worker
-- that receives it asks wake_joined_parent (0052) again in a new snapshot. Of two ends
-- committed together, the later one's look sees both. No lock on the parent: a completion batch
-- ending children of several parents would deadlock with another ending them in another order.
CREATE OR REPLACE FUNCTION wake_joining_parent() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT wake_joined_parent(NEW.parent_id) THEN
    PERFORM pg_notify('agent_ledger_joins', NEW.parent_id::text)
       FROM tasks p
      WHERE p.id = NEW.parent_id AND p.status = 'waiting'
        AND EXISTS (SELECT 1 FROM steps s
                     WHERE s.task_id = p.id AND s.kind = 'join' AND s.status = 'started');
  END IF;
  RETURN NULL;
END
$$;
