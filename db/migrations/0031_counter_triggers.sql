-- Keeps ledger_hourly_counts and status_counts (db/schema/ledger.ts, status-counts.ts) in the
-- writing transaction. Writes are locked out until this migration commits, so the backfill
-- below and the triggers' counts neither miss nor double a row (replacing a function alone
-- takes no lock: an append committed between it and the backfill would be counted by neither).
LOCK TABLE ledger_entries, tasks, effects IN SHARE ROW EXCLUSIVE MODE;
--> statement-breakpoint
-- ledger_kind_counts as in 0022, and the same entries per UTC hour (date_bin from a whole hour
-- of UTC, so the session's time zone never moves a bucket). The first append of a backend in an
-- hour also folds the hours that ended over an hour ago into backend 0 (rows an open
-- transaction holds are skipped and folded by a later fold), so the table keeps about one row
-- per kind and hour, however many backends appended.
CREATE OR REPLACE FUNCTION ledger_count_kinds() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  fresh boolean;
  fresh_hour boolean;
BEGIN
  WITH counted AS (
    INSERT INTO ledger_kind_counts AS c (kind, backend, entries)
    SELECT kind, pg_backend_pid(), count(*) FROM new_entries GROUP BY kind ORDER BY kind
    ON CONFLICT (kind, backend) DO UPDATE SET entries = c.entries + excluded.entries
    RETURNING xmax = 0 AS inserted
  )
  SELECT bool_or(inserted) INTO fresh FROM counted;
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

  WITH counted AS (
    INSERT INTO ledger_hourly_counts AS c (kind, hour, backend, entries)
    SELECT kind, date_bin('1 hour', at, timestamptz '2000-01-01 00:00:00+00'), pg_backend_pid(), count(*)
      FROM new_entries GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (kind, hour, backend) DO UPDATE SET entries = c.entries + excluded.entries
    RETURNING xmax = 0 AS inserted
  )
  SELECT bool_or(inserted) INTO fresh_hour FROM counted;
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
INSERT INTO ledger_hourly_counts (kind, hour, backend, entries)
SELECT kind, date_bin('1 hour', at, timestamptz '2000-01-01 00:00:00+00'), 0, count(*)
  FROM ledger_entries GROUP BY 1, 2;
--> statement-breakpoint
-- Adds the deltas to the writing backend's rows (in key order, so two writers never deadlock);
-- the first time a backend writes a key it also folds the rows of backends that are gone into
-- its own, as ledger_count_kinds does.
CREATE FUNCTION status_counts_add(tbl text, statuses text[], reasons text[], deltas bigint[])
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  fresh boolean;
BEGIN
  WITH counted AS (
    INSERT INTO status_counts AS c (table_name, status, reason, backend, rows)
    SELECT tbl, u.status, u.reason, pg_backend_pid(), sum(u.delta)
      FROM unnest(statuses, reasons, deltas) AS u(status, reason, delta)
     GROUP BY u.status, u.reason
    HAVING sum(u.delta) <> 0
     ORDER BY u.status, u.reason
    ON CONFLICT (table_name, status, reason, backend) DO UPDATE SET rows = c.rows + excluded.rows
    RETURNING xmax = 0 AS inserted
  )
  SELECT bool_or(inserted) INTO fresh FROM counted;
  IF fresh THEN
    WITH gone AS (
      DELETE FROM status_counts
       WHERE ctid = ANY (ARRAY(
         SELECT g.ctid FROM status_counts g
          WHERE g.backend <> pg_backend_pid()
            AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = g.backend)
          FOR UPDATE SKIP LOCKED))
      RETURNING table_name, status, reason, rows
    )
    INSERT INTO status_counts AS c (table_name, status, reason, backend, rows)
    SELECT table_name, status, reason, pg_backend_pid(), sum(rows) FROM gone
     GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (table_name, status, reason, backend) DO UPDATE SET rows = c.rows + excluded.rows;
  END IF;
END
$$;
--> statement-breakpoint
-- Inserts and deletes are counted per statement (a bulk enqueue of 10,000 tasks is one upsert);
-- a status change per row, and only when the status (or a dead task's reason) changed, so the
-- heartbeat's lease renewals and every other update cost nothing here. `reason` is '' unless
-- the task is dead (tasks_dead_reason_check: dead_reason is set exactly for dead tasks).
CREATE FUNCTION status_counts_statement() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  statuses text[];
  reasons text[];
  deltas bigint[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF TG_TABLE_NAME = 'tasks' THEN
      SELECT array_agg(status), array_agg(reason), array_agg(n) INTO statuses, reasons, deltas
        FROM (SELECT status, coalesce(dead_reason, '') AS reason, count(*) AS n
                FROM new_rows GROUP BY 1, 2) s;
    ELSE
      SELECT array_agg(status), array_agg(''::text), array_agg(n) INTO statuses, reasons, deltas
        FROM (SELECT status, count(*) AS n FROM new_rows GROUP BY 1) s;
    END IF;
  ELSE
    IF TG_TABLE_NAME = 'tasks' THEN
      SELECT array_agg(status), array_agg(reason), array_agg(-n) INTO statuses, reasons, deltas
        FROM (SELECT status, coalesce(dead_reason, '') AS reason, count(*) AS n
                FROM old_rows GROUP BY 1, 2) s;
    ELSE
      SELECT array_agg(status), array_agg(''::text), array_agg(-n) INTO statuses, reasons, deltas
        FROM (SELECT status, count(*) AS n FROM old_rows GROUP BY 1) s;
    END IF;
  END IF;
  IF statuses IS NOT NULL THEN
    PERFORM status_counts_add(TG_TABLE_NAME, statuses, reasons, deltas);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION status_counts_row_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'tasks' THEN
    PERFORM status_counts_add('tasks', ARRAY[OLD.status, NEW.status],
      ARRAY[coalesce(OLD.dead_reason, ''), coalesce(NEW.dead_reason, '')], ARRAY[-1, 1]::bigint[]);
  ELSE
    PERFORM status_counts_add('effects', ARRAY[OLD.status, NEW.status], ARRAY['', ''],
      ARRAY[-1, 1]::bigint[]);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER tasks_count_inserted AFTER INSERT ON tasks
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION status_counts_statement();
--> statement-breakpoint
CREATE TRIGGER tasks_count_deleted AFTER DELETE ON tasks
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION status_counts_statement();
--> statement-breakpoint
CREATE TRIGGER tasks_count_status_changed AFTER UPDATE OF status, dead_reason ON tasks
FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.dead_reason IS DISTINCT FROM NEW.dead_reason)
EXECUTE FUNCTION status_counts_row_change();
--> statement-breakpoint
CREATE TRIGGER effects_count_inserted AFTER INSERT ON effects
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION status_counts_statement();
--> statement-breakpoint
CREATE TRIGGER effects_count_deleted AFTER DELETE ON effects
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION status_counts_statement();
--> statement-breakpoint
CREATE TRIGGER effects_count_status_changed AFTER UPDATE OF status ON effects
FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
EXECUTE FUNCTION status_counts_row_change();
--> statement-breakpoint
INSERT INTO status_counts (table_name, status, reason, backend, rows)
SELECT 'tasks', status, coalesce(dead_reason, ''), 0, count(*) FROM tasks GROUP BY 2, 3;
--> statement-breakpoint
INSERT INTO status_counts (table_name, status, reason, backend, rows)
SELECT 'effects', status, '', 0, count(*) FROM effects GROUP BY 2;
