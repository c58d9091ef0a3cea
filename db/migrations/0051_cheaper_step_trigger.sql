-- Migration 0027's statement trigger on steps ran an UPDATE of tasks for every statement that
-- journals a step, to refresh dead_tool for the (rare) step that lands on a task already dead (a
-- result recorded after its lease was lost). That UPDATE changed nothing almost always, but fired
-- the tasks' statement triggers all the same (0049's status counters). It now looks first.
CREATE OR REPLACE FUNCTION steps_refresh_dead_tool() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM new_steps n JOIN tasks t ON t.id = n.task_id
              WHERE n.kind = 'tool' AND t.status = 'dead') THEN
    UPDATE tasks t SET dead_tool = task_last_tool(t.id)
    FROM (SELECT DISTINCT task_id FROM new_steps WHERE kind = 'tool') n
    WHERE t.id = n.task_id AND t.status = 'dead';
  END IF;
  RETURN NULL;
END
$$;
