-- An attempt's start rides on its first entry (data.attemptStarted) instead of an
-- attempt.started entry of its own (one entry, one statement and one head move fewer per
-- attempt). The lifetime count of attempts started (the metrics' attempts_started) was the
-- attempt.started counter; it is now that plus `attempts`: per kind, how many of its entries
-- carry an attempt's start, kept by the same statement trigger. Adding a column with a
-- constant default rewrites nothing; the per-kind entry counts (and their total) are unchanged.
ALTER TABLE ledger_kind_counts ADD COLUMN attempts bigint NOT NULL DEFAULT 0;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION ledger_count_kinds() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  fresh boolean;
  fresh_hour boolean;
BEGIN
  WITH d AS (
    SELECT kind, count(*) AS n, count(*) FILTER (WHERE data ? 'attemptStarted') AS a
      FROM new_entries GROUP BY kind
  ), bumped AS (
    UPDATE ledger_kind_counts c SET entries = c.entries + d.n, attempts = c.attempts + d.a
      FROM d
     WHERE c.kind = d.kind AND c.backend = pg_backend_pid()
    RETURNING c.kind
  ), added AS (
    INSERT INTO ledger_kind_counts (kind, backend, entries, attempts)
    SELECT d.kind, pg_backend_pid(), d.n, d.a FROM d
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
      RETURNING kind, entries, attempts
    )
    INSERT INTO ledger_kind_counts AS c (kind, backend, entries, attempts)
    SELECT kind, pg_backend_pid(), sum(entries), sum(attempts) FROM gone GROUP BY kind ORDER BY kind
    ON CONFLICT (kind, backend) DO UPDATE
      SET entries = c.entries + excluded.entries, attempts = c.attempts + excluded.attempts;
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

