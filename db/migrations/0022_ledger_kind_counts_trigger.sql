-- Keeps ledger_kind_counts (db/schema/ledger.ts) in the transaction that appends: one upsert per
-- appending statement and kind, into rows of the appending backend only, so no two transactions
-- ever wait on (or deadlock over) a counter row. The first time a backend counts a kind it also
-- folds the rows of backends that are gone into its own (rows another folder holds are skipped),
-- so the table stays at about kinds x live backends. The sum over backends is exact in any
-- snapshot: a rolled-back append rolls its count back with it.
CREATE FUNCTION ledger_count_kinds() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  fresh boolean;
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
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- Creating the trigger locks out appends until this migration commits, so the count below and
-- the trigger's counts neither miss nor double an entry.
CREATE TRIGGER ledger_entries_count_kinds AFTER INSERT ON ledger_entries
REFERENCING NEW TABLE AS new_entries
FOR EACH STATEMENT EXECUTE FUNCTION ledger_count_kinds();
--> statement-breakpoint
INSERT INTO ledger_kind_counts (kind, backend, entries)
SELECT kind, 0, count(*) FROM ledger_entries GROUP BY kind;
