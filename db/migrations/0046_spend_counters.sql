-- Keeps task_spend (db/schema/spend.ts) in step with tasks.cost: per agent, UTC day of the task's
-- creation and its status now. Only tasks that spent something fire it (cost <> 0), so a task
-- without model calls writes nothing more. One row per key and writing backend, as status_counts.
CREATE FUNCTION task_spend_add(d date, a text, s text, n bigint, c double precision)
RETURNS void LANGUAGE sql AS $$
  INSERT INTO task_spend AS t (day, agent, status, backend, tasks, cost)
  VALUES (d, a, s, pg_backend_pid(), n, c)
  ON CONFLICT (day, agent, status, backend)
  DO UPDATE SET tasks = t.tasks + excluded.tasks, cost = t.cost + excluded.cost
$$;
--> statement-breakpoint
CREATE FUNCTION task_spend_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Only a row that spent something is counted: a task's first model call adds it, without
  -- taking away the row before it, which was never counted.
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.cost <> 0 THEN
    PERFORM task_spend_add((OLD.created_at AT TIME ZONE 'UTC')::date, OLD.agent, OLD.status, -1, -OLD.cost);
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.cost <> 0 THEN
    PERFORM task_spend_add((NEW.created_at AT TIME ZONE 'UTC')::date, NEW.agent, NEW.status, 1, NEW.cost);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER task_spend_insert AFTER INSERT ON tasks
FOR EACH ROW WHEN (NEW.cost <> 0) EXECUTE FUNCTION task_spend_row();
--> statement-breakpoint
CREATE TRIGGER task_spend_update AFTER UPDATE OF status, cost ON tasks
FOR EACH ROW WHEN ((OLD.cost <> 0 OR NEW.cost <> 0)
  AND (OLD.status IS DISTINCT FROM NEW.status OR OLD.cost <> NEW.cost))
EXECUTE FUNCTION task_spend_row();
--> statement-breakpoint
CREATE TRIGGER task_spend_delete AFTER DELETE ON tasks
FOR EACH ROW WHEN (OLD.cost <> 0) EXECUTE FUNCTION task_spend_row();
--> statement-breakpoint
-- The spend counters recounted from their sources: tasks from their cost, model calls from the
-- ledger's model.called entries (their model, usage and cost), all under backend 0. This
-- migration runs it for what was spent before it; the scale loader after its bulk load. Not for
-- a database workers are writing to: a call committed while it runs could be counted twice.
CREATE FUNCTION spend_recount() RETURNS void LANGUAGE sql AS $$
  DELETE FROM task_spend;
  DELETE FROM spend_daily;
  DELETE FROM spend_tool_daily;
  INSERT INTO task_spend (day, agent, status, backend, tasks, cost)
  SELECT (created_at AT TIME ZONE 'UTC')::date, agent, status, 0, count(*), sum(cost)
  FROM tasks WHERE cost <> 0
  GROUP BY 1, 2, 3;
  INSERT INTO spend_daily (day, agent, model, backend, calls, unpriced_calls, input_tokens,
    output_tokens, cached_input_tokens, reasoning_tokens, cost)
  SELECT (e.at AT TIME ZONE 'UTC')::date, t.agent, coalesce(e.data ->> 'model', ''), 0, count(*),
    count(*) FILTER (WHERE e.data ->> 'priced' = 'false'),
    coalesce(sum((e.data #>> '{usage,inputTokens}')::bigint), 0),
    coalesce(sum((e.data #>> '{usage,outputTokens}')::bigint), 0),
    coalesce(sum((e.data #>> '{usage,cachedInputTokens}')::bigint), 0),
    coalesce(sum((e.data #>> '{usage,reasoningTokens}')::bigint), 0),
    coalesce(sum((e.data ->> 'cost')::double precision), 0)
  FROM ledger_entries e JOIN tasks t ON t.id = e.task_id
  WHERE e.kind = 'model.called'
  GROUP BY 1, 2, 3;
  INSERT INTO spend_tool_daily (day, agent, tool, backend, decisions, cost)
  SELECT day, agent, tool, 0, count(*), sum(share)
  FROM (
    SELECT (e.at AT TIME ZONE 'UTC')::date AS day, t.agent,
      coalesce(c.value ->> 'toolName', '') AS tool,
      coalesce((e.data ->> 'cost')::double precision, 0)
        / greatest(CASE WHEN jsonb_typeof(e.data -> 'toolCalls') = 'array'
            THEN jsonb_array_length(e.data -> 'toolCalls') ELSE 0 END, 1) AS share
    FROM ledger_entries e
    JOIN tasks t ON t.id = e.task_id
    LEFT JOIN LATERAL jsonb_array_elements(
      CASE WHEN jsonb_typeof(e.data -> 'toolCalls') = 'array' THEN e.data -> 'toolCalls'
      ELSE '[]'::jsonb END
    ) c ON true
    WHERE e.kind = 'model.called'
  ) s
  GROUP BY 1, 2, 3;
$$;
--> statement-breakpoint
SELECT spend_recount();
