-- Lighter counters (issue 23, the WAL diet). Three changes, the counts they keep unchanged:
-- 1. A status change is counted once per statement, not once per row: the row triggers of 0031
--    (two upserts per changed row) become statement triggers over the statement's transition
--    tables, so a batch that finishes twenty tasks bumps two counter rows once each.
-- 2. A counter row is bumped with a plain UPDATE and inserted only when this backend has none
--    yet: INSERT … ON CONFLICT DO UPDATE first locks the row it conflicts with (a WAL record of
--    its own) and then updates it. Only the backend that owns a row (backend = its pid) writes
--    it, so nothing can insert the row between the update that missed it and the insert; a
--    fold that deletes a gone backend's row under a reused pid makes the update miss and the
--    insert add a fresh one.
-- 3. No BEFORE UPDATE row trigger on a hot table: PostgreSQL locks the row for one (a WAL
--    record) before it updates it. The stream heads' guard and the tasks' dead_tool upkeep on a
--    status change now run AFTER the update; an AFTER trigger that raises still undoes it.
-- 4. Migration 0048 dropped the ledger's foreign keys (each entry's check locked its stream's
--    head and its task, a WAL record each); what they refused that still matters is deleting a
--    task the ledger speaks of, refused here by trigger with the same error code.
CREATE OR REPLACE FUNCTION status_counts_add(tbl text, statuses text[], reasons text[], deltas bigint[])
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  fresh boolean;
BEGIN
  WITH d AS (
    SELECT u.status, u.reason, sum(u.delta) AS delta
      FROM unnest(statuses, reasons, deltas) AS u(status, reason, delta)
     GROUP BY u.status, u.reason
    HAVING sum(u.delta) <> 0
  ), bumped AS (
    UPDATE status_counts c SET rows = c.rows + d.delta
      FROM d
     WHERE c.table_name = tbl AND c.status = d.status AND c.reason = d.reason
       AND c.backend = pg_backend_pid()
    RETURNING c.status, c.reason
  ), added AS (
    INSERT INTO status_counts (table_name, status, reason, backend, rows)
    SELECT tbl, d.status, d.reason, pg_backend_pid(), d.delta
      FROM d
     WHERE NOT EXISTS (SELECT 1 FROM bumped b WHERE b.status = d.status AND b.reason = d.reason)
     ORDER BY d.status, d.reason
    RETURNING 1
  )
  SELECT EXISTS (SELECT 1 FROM added) INTO fresh;
  IF fresh THEN
    PERFORM status_counts_fold();
  END IF;
END
$$;
--> statement-breakpoint
-- The rows whose status (or, for tasks, dead reason) the statement changed: -1 under the old
-- key, +1 under the new. Other updates (a lease renewal, a heartbeat) count nothing.
CREATE OR REPLACE FUNCTION status_counts_updated() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  statuses text[];
  reasons text[];
  deltas bigint[];
BEGIN
  IF TG_TABLE_NAME = 'tasks' THEN
    WITH changed AS (
      SELECT o.status AS old_status, coalesce(o.dead_reason, '') AS old_reason,
             n.status AS new_status, coalesce(n.dead_reason, '') AS new_reason
        FROM old_rows o JOIN new_rows n ON n.id = o.id
       WHERE o.status IS DISTINCT FROM n.status OR o.dead_reason IS DISTINCT FROM n.dead_reason
    )
    SELECT array_agg(status), array_agg(reason), array_agg(delta) INTO statuses, reasons, deltas
      FROM (SELECT old_status AS status, old_reason AS reason, -1::bigint AS delta FROM changed
            UNION ALL
            SELECT new_status, new_reason, 1::bigint FROM changed) s;
  ELSE
    WITH changed AS (
      SELECT o.status AS old_status, n.status AS new_status
        FROM old_rows o JOIN new_rows n ON n.key = o.key
       WHERE o.status IS DISTINCT FROM n.status
    )
    SELECT array_agg(status), array_agg(''::text), array_agg(delta) INTO statuses, reasons, deltas
      FROM (SELECT old_status AS status, -1::bigint AS delta FROM changed
            UNION ALL
            SELECT new_status, 1::bigint FROM changed) s;
  END IF;
  IF statuses IS NOT NULL THEN
    PERFORM status_counts_add(TG_TABLE_NAME, statuses, reasons, deltas);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
DROP TRIGGER tasks_count_status_changed ON tasks;
--> statement-breakpoint
DROP TRIGGER effects_count_status_changed ON effects;
--> statement-breakpoint
DROP FUNCTION status_counts_row_change();
--> statement-breakpoint
-- Transition tables cannot go with a column list (UPDATE OF status): the function picks the
-- rows whose status changed itself.
CREATE TRIGGER tasks_count_status_changed AFTER UPDATE ON tasks
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION status_counts_updated();
--> statement-breakpoint
CREATE TRIGGER effects_count_status_changed AFTER UPDATE ON effects
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION status_counts_updated();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION ledger_count_kinds() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  fresh boolean;
  fresh_hour boolean;
BEGIN
  WITH d AS (
    SELECT kind, count(*) AS n FROM new_entries GROUP BY kind
  ), bumped AS (
    UPDATE ledger_kind_counts c SET entries = c.entries + d.n
      FROM d
     WHERE c.kind = d.kind AND c.backend = pg_backend_pid()
    RETURNING c.kind
  ), added AS (
    INSERT INTO ledger_kind_counts (kind, backend, entries)
    SELECT d.kind, pg_backend_pid(), d.n FROM d
     WHERE d.kind NOT IN (SELECT kind FROM bumped)
     ORDER BY d.kind
    RETURNING 1
  )
  SELECT EXISTS (SELECT 1 FROM added) INTO fresh;
  IF fresh THEN
    WITH gone AS (
      DELETE FROM ledger_kind_counts
       WHERE ctid = ANY (ARRAY(
         SELECT g.ctid FROM ledger_kind_counts g
          WHERE g.backend <> pg_backend_pid()
            AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = g.backend)
          FOR UPDATE SKIP LOCKED))
      RETURNING kind, entries
    )
    INSERT INTO ledger_kind_counts AS c (kind, backend, entries)
    SELECT kind, pg_backend_pid(), sum(entries) FROM gone GROUP BY kind ORDER BY kind
    ON CONFLICT (kind, backend) DO UPDATE SET entries = c.entries + excluded.entries;
  END IF;

  WITH d AS (
    SELECT kind, date_bin('1 hour', at, timestamptz '2000-01-01 00:00:00+00') AS hour, count(*) AS n
      FROM new_entries GROUP BY 1, 2
  ), bumped AS (
    UPDATE ledger_hourly_counts c SET entries = c.entries + d.n
      FROM d
     WHERE c.kind = d.kind AND c.hour = d.hour AND c.backend = pg_backend_pid()
    RETURNING c.kind, c.hour
  ), added AS (
    INSERT INTO ledger_hourly_counts (kind, hour, backend, entries)
    SELECT d.kind, d.hour, pg_backend_pid(), d.n FROM d
     WHERE NOT EXISTS (SELECT 1 FROM bumped b WHERE b.kind = d.kind AND b.hour = d.hour)
     ORDER BY d.kind, d.hour
    RETURNING 1
  )
  SELECT EXISTS (SELECT 1 FROM added) INTO fresh_hour;
  IF fresh_hour THEN
    WITH folded AS (
      DELETE FROM ledger_hourly_counts
       WHERE ctid = ANY (ARRAY(
         SELECT f.ctid FROM ledger_hourly_counts f
          WHERE f.backend <> 0
            AND f.hour < date_bin('1 hour', now(), timestamptz '2000-01-01 00:00:00+00') - interval '1 hour'
          FOR UPDATE SKIP LOCKED))
      RETURNING kind, hour, entries
    )
    INSERT INTO ledger_hourly_counts AS c (kind, hour, backend, entries)
    SELECT kind, hour, 0, sum(entries) FROM folded GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (kind, hour, backend) DO UPDATE SET entries = c.entries + excluded.entries;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION tasks_keep_ledgered() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM ledger_entries WHERE task_id = OLD.id) THEN
    RAISE EXCEPTION 'task % has ledger entries: it cannot be deleted', OLD.id
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN OLD;
END
$$;
--> statement-breakpoint
CREATE TRIGGER tasks_keep_ledgered BEFORE DELETE ON tasks
FOR EACH ROW EXECUTE FUNCTION tasks_keep_ledgered();
--> statement-breakpoint
DROP TRIGGER ledger_streams_guard_row ON ledger_streams;
--> statement-breakpoint
CREATE TRIGGER ledger_streams_guard_row
  AFTER UPDATE OR DELETE ON ledger_streams
  FOR EACH ROW EXECUTE FUNCTION ledger_streams_guard();
--> statement-breakpoint
-- dead_tool on insert stays a BEFORE INSERT trigger (an insert locks nothing); on a status
-- change into or out of `dead`, a second update of the row, only then.
DROP TRIGGER tasks_keep_dead_tool ON tasks;
--> statement-breakpoint
CREATE TRIGGER tasks_keep_dead_tool BEFORE INSERT ON tasks
FOR EACH ROW EXECUTE FUNCTION tasks_keep_dead_tool();
--> statement-breakpoint
CREATE FUNCTION tasks_keep_dead_tool_updated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE tasks SET dead_tool = CASE WHEN NEW.status = 'dead' THEN task_last_tool(NEW.id) END
   WHERE id = NEW.id;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER tasks_keep_dead_tool_updated AFTER UPDATE OF status ON tasks
FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status AND (NEW.status = 'dead' OR OLD.status = 'dead'))
EXECUTE FUNCTION tasks_keep_dead_tool_updated();
