-- tasks.dead_tool (db/schema/tasks.ts): the name of a dead task's last journaled tool step, kept
-- here so no writer has to: set when a task becomes dead, cleared when it leaves dead, and
-- refreshed when a tool step is journaled for a task that is already dead (tests and the scale
-- loader write a dead task before its steps; the runtime journals steps while a task runs).
CREATE FUNCTION task_last_tool(task uuid) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT s.name FROM steps s WHERE s.task_id = task AND s.kind = 'tool' ORDER BY s.seq DESC LIMIT 1
$$;
--> statement-breakpoint
CREATE FUNCTION tasks_keep_dead_tool() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status <> 'dead' THEN
    NEW.dead_tool := NULL;
  ELSIF TG_OP = 'INSERT' OR OLD.status <> 'dead' THEN
    NEW.dead_tool := task_last_tool(NEW.id);
  END IF;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER tasks_keep_dead_tool BEFORE INSERT OR UPDATE OF status ON tasks
FOR EACH ROW EXECUTE FUNCTION tasks_keep_dead_tool();
--> statement-breakpoint
CREATE FUNCTION steps_refresh_dead_tool() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE tasks t SET dead_tool = task_last_tool(t.id)
  FROM (SELECT DISTINCT task_id FROM new_steps WHERE kind = 'tool') n
  WHERE t.id = n.task_id AND t.status = 'dead';
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER steps_refresh_dead_tool AFTER INSERT ON steps
REFERENCING NEW TABLE AS new_steps
FOR EACH STATEMENT EXECUTE FUNCTION steps_refresh_dead_tool();
--> statement-breakpoint
UPDATE tasks SET dead_tool = task_last_tool(id) WHERE status = 'dead';
