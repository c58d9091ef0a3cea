-- Archive phase 2 (issue 23, retention with proof): ledger_entries is partitioned by the UTC
-- month its stream was opened, so a month whose streams are all archived can later leave as a
-- whole (ledger_detach_month) instead of row by row, which the append-only guards refuse. The
-- month is a function of the stream (ledger_streams.month), never of the entry: a stream's
-- entries all sit in one partition. It is bookkeeping, not content: no hash covers it.
-- Streams other than a task's (system, bulk:…) are never archived; they get 1970-01-01 and
-- live in ledger_entries_unarchivable. A DEFAULT partition catches a month nobody created, so
-- an append never fails for want of a partition.
ALTER TABLE ledger_streams ADD COLUMN month date NOT NULL GENERATED ALWAYS AS (
  CASE WHEN stream LIKE 'task:%' THEN date_trunc('month', created_at AT TIME ZONE 'UTC')::date
       ELSE date '1970-01-01' END
) STORED;
--> statement-breakpoint
-- The new table has no keys or indexes yet: they are built once, after the copy.
CREATE TABLE ledger_entries_next (
  id bigint GENERATED ALWAYS AS IDENTITY,
  stream text NOT NULL,
  seq bigint NOT NULL,
  at timestamp(3) with time zone NOT NULL,
  kind text NOT NULL,
  actor text NOT NULL,
  task_id uuid,
  key text,
  data jsonb NOT NULL,
  prev_hash text NOT NULL,
  hash text NOT NULL,
  month date NOT NULL,
  CONSTRAINT ledger_entries_seq_check CHECK (seq >= 1),
  CONSTRAINT ledger_entries_kind_check CHECK (kind ~ '^[a-z][a-z_]*(\.[a-z][a-z_]*)*$'),
  CONSTRAINT ledger_entries_hash_check CHECK (hash ~ '^[0-9a-f]{64}$'),
  CONSTRAINT ledger_entries_prev_hash_check CHECK (prev_hash ~ '^[0-9a-f]{64}$')
) PARTITION BY RANGE (month);
--> statement-breakpoint
ALTER TABLE ledger_entries RENAME TO ledger_entries_unpartitioned;
--> statement-breakpoint
ALTER TABLE ledger_entries_next RENAME TO ledger_entries;
--> statement-breakpoint
CREATE TABLE ledger_entries_unarchivable PARTITION OF ledger_entries
  FOR VALUES FROM (MINVALUE) TO ('2000-01-01');
--> statement-breakpoint
CREATE TABLE ledger_entries_default PARTITION OF ledger_entries DEFAULT;
--> statement-breakpoint
-- The partitions are reached only through ledger_entries (whose privileges are checked): the
-- schema's default privileges would give the app UPDATE and DELETE on each one directly.
-- TRUNCATE of a partition by name does not fire the parent's trigger: each has its own.
CREATE FUNCTION ledger_guard_partition(part regclass) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
BEGIN
  EXECUTE format('REVOKE ALL ON %s FROM PUBLIC, agent_ledger_app', part);
  EXECUTE format(
    'CREATE TRIGGER ledger_entries_no_truncate BEFORE TRUNCATE ON %s FOR EACH STATEMENT EXECUTE FUNCTION ledger_reject_mutation()',
    part);
END
$$;
--> statement-breakpoint
SELECT ledger_guard_partition('ledger_entries_unarchivable');
--> statement-breakpoint
SELECT ledger_guard_partition('ledger_entries_default');
--> statement-breakpoint
-- One partition ledger_entries_yYYYYmMM per month from `since` (the current UTC month when
-- null) through `through`'s month; returns how many it created. Idempotent and cheap when there
-- is nothing to do (a catalog lookup per month). A month whose entries already sit in the
-- default partition is skipped, not an error: its partition cannot be created until they move.
-- A month whose partition is busy (the lock is not had within 5 s) is left for the next call.
CREATE FUNCTION ledger_ensure_partitions(through date, since date DEFAULT NULL) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public SET lock_timeout = '5s' AS $$
DECLARE
  m date := date_trunc('month', coalesce(since, (now() AT TIME ZONE 'UTC')::date))::date;
  last date := date_trunc('month', through)::date;
  part text;
  made integer := 0;
BEGIN
  IF m < date '2000-01-01' THEN
    m := date '2000-01-01';
  END IF;
  WHILE m <= last LOOP
    part := format('ledger_entries_y%sm%s', to_char(m, 'YYYY'), to_char(m, 'MM'));
    IF to_regclass('public.' || part) IS NULL
       AND NOT EXISTS (SELECT 1 FROM ledger_entries_default
                        WHERE month >= m AND month < (m + interval '1 month')::date) THEN
      BEGIN
        EXECUTE format('CREATE TABLE public.%I PARTITION OF ledger_entries FOR VALUES FROM (%L) TO (%L)',
                       part, m, (m + interval '1 month')::date);
        PERFORM ledger_guard_partition(('public.' || part)::regclass);
        made := made + 1;
      EXCEPTION WHEN lock_not_available THEN
        RAISE NOTICE 'ledger partition % not created now: the ledger is busy', part;
      END;
    END IF;
    m := (m + interval '1 month')::date;
  END LOOP;
  RETURN made;
END
$$;
--> statement-breakpoint
-- Every month with data, and two ahead: the copy below goes to the right partitions.
SELECT ledger_ensure_partitions(
  ((now() AT TIME ZONE 'UTC')::date + interval '2 months')::date,
  (SELECT min(month) FROM ledger_streams WHERE month >= date '2000-01-01'));
--> statement-breakpoint
-- Ids are kept and the identity goes on from where the old one stopped. An entry whose stream
-- has no head (verify names it) cannot be archived: it goes with the unarchivable ones.
INSERT INTO ledger_entries (id, stream, seq, at, kind, actor, task_id, key, data, prev_hash, hash, month)
OVERRIDING SYSTEM VALUE
SELECT e.id, e.stream, e.seq, e.at, e.kind, e.actor, e.task_id, e.key, e.data, e.prev_hash, e.hash,
       coalesce(s.month, date '1970-01-01')
  FROM ledger_entries_unpartitioned e LEFT JOIN ledger_streams s ON s.stream = e.stream
 ORDER BY e.id;
--> statement-breakpoint
SELECT setval('ledger_entries_next_id_seq', last_value, is_called) FROM ledger_entries_id_seq;
--> statement-breakpoint
DROP TABLE ledger_entries_unpartitioned;
--> statement-breakpoint
ALTER SEQUENCE ledger_entries_next_id_seq RENAME TO ledger_entries_id_seq;
--> statement-breakpoint
-- A partitioned table's keys must hold the partition key. The month is a function of the
-- stream, so (stream, seq, month) still allows one entry per stream and seq, and (id, month)
-- one per id (the identity gives each its own).
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_pkey PRIMARY KEY (id, month);
--> statement-breakpoint
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_stream_seq_key UNIQUE (stream, seq, month);
--> statement-breakpoint
CREATE INDEX ledger_entries_key_idx ON ledger_entries USING btree (key, id) WHERE (key IS NOT NULL);
--> statement-breakpoint
CREATE INDEX ledger_entries_kind_at_idx ON ledger_entries USING btree (kind, at DESC, id DESC);
--> statement-breakpoint
CREATE INDEX ledger_entries_at_idx ON ledger_entries USING btree (at DESC, id DESC);
--> statement-breakpoint
CREATE INDEX ledger_entries_actor_at_idx ON ledger_entries USING btree (actor, at DESC, id DESC);
--> statement-breakpoint
CREATE INDEX ledger_entries_task_at_idx ON ledger_entries USING btree (task_id, at DESC, id DESC) WHERE (task_id IS NOT NULL);
--> statement-breakpoint
CREATE INDEX ledger_entries_tool_at_idx ON ledger_entries USING btree (((data ->> 'tool'::text)), at DESC, id DESC) WHERE (key IS NOT NULL);
--> statement-breakpoint
CREATE INDEX ledger_entries_untooled_at_idx ON ledger_entries USING btree (at DESC, id DESC) WHERE ((key IS NOT NULL) AND ((data ->> 'tool'::text) IS NULL));
--> statement-breakpoint
-- The triggers of 0001 and 0049, after the copy (which must not count its entries again). Row
-- triggers are cloned onto every partition, present and future; the statement triggers fire
-- on the parent, the counter's transition table holding the rows of every partition.
CREATE TRIGGER ledger_entries_no_update_delete
  BEFORE UPDATE OR DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_reject_mutation();
--> statement-breakpoint
CREATE TRIGGER ledger_entries_no_truncate
  BEFORE TRUNCATE ON ledger_entries
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_reject_mutation();
--> statement-breakpoint
CREATE TRIGGER ledger_entries_count_kinds AFTER INSERT ON ledger_entries
  REFERENCING NEW TABLE AS new_entries
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_count_kinds();
--> statement-breakpoint
REVOKE ALL ON ledger_entries FROM PUBLIC;
--> statement-breakpoint
REVOKE ALL ON ledger_entries FROM agent_ledger_app;
--> statement-breakpoint
GRANT SELECT, INSERT ON ledger_entries TO agent_ledger_app;
--> statement-breakpoint
GRANT USAGE, SELECT ON SEQUENCE ledger_entries_id_seq TO agent_ledger_app;
--> statement-breakpoint
-- The only sanctioned removal of entries: a past month's partition, once every stream opened
-- in it is archived (archived streams are frozen: nothing can append to them). Refused with
-- SQLSTATE LA002 otherwise. Returns how many entries left with it. Recording the removal
-- (a system entry with the archive's digest) is the caller's.
CREATE FUNCTION ledger_detach_month(m date) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
  part text;
  bound text;
  open_streams bigint;
  n bigint;
BEGIN
  IF m IS NULL OR m <> date_trunc('month', m)::date OR m < date '2000-01-01' THEN
    RAISE EXCEPTION 'ledger month % is not the first day of a month since 2000', m
      USING ERRCODE = 'LA002';
  END IF;
  IF m >= date_trunc('month', now() AT TIME ZONE 'UTC')::date THEN
    RAISE EXCEPTION 'ledger month % is not over yet: its streams may still be opened', m
      USING ERRCODE = 'LA002';
  END IF;
  part := format('ledger_entries_y%sm%s', to_char(m, 'YYYY'), to_char(m, 'MM'));
  SELECT pg_get_expr(c.relpartbound, c.oid) INTO bound
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
   WHERE i.inhparent = 'public.ledger_entries'::regclass
     AND c.relname = part AND c.relnamespace = 'public'::regnamespace;
  IF bound IS DISTINCT FROM format('FOR VALUES FROM (%L) TO (%L)', m, (m + interval '1 month')::date) THEN
    RAISE EXCEPTION 'ledger month % has no partition of its own (%)', m, coalesce(bound, 'none')
      USING ERRCODE = 'LA002';
  END IF;
  -- Nothing enters the partition from here on (DETACH would take this lock anyway).
  EXECUTE format('LOCK TABLE public.%I IN ACCESS EXCLUSIVE MODE', part);
  SELECT count(*) INTO open_streams FROM ledger_streams WHERE month = m AND archived_in IS NULL;
  IF open_streams > 0 THEN
    RAISE EXCEPTION 'ledger month % has % stream(s) not archived', m, open_streams
      USING ERRCODE = 'LA002';
  END IF;
  EXECUTE format('SELECT count(*) FROM public.%I', part) INTO n;
  EXECUTE format('ALTER TABLE ledger_entries DETACH PARTITION public.%I', part);
  EXECUTE format('DROP TABLE public.%I', part);
  RETURN n;
END
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION ledger_ensure_partitions(date, date) FROM PUBLIC;
--> statement-breakpoint
REVOKE ALL ON FUNCTION ledger_detach_month(date) FROM PUBLIC;
--> statement-breakpoint
REVOKE ALL ON FUNCTION ledger_guard_partition(regclass) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION ledger_ensure_partitions(date, date) TO agent_ledger_app;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION ledger_detach_month(date) TO agent_ledger_app;
