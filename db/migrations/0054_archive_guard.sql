-- An archived stream is frozen (agent-ledger archive, issue 23): its head row never moves
-- again, so every append to it fails in the statement that moves the head. Archiving itself
-- is one update that sets archived_in and archived_at with the head unchanged, allowed once;
-- clearing or changing them is refused. SQLSTATE LA001 (our own class) tells an append to an
-- archived stream from every other refusal.
CREATE OR REPLACE FUNCTION ledger_streams_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF NEW.stream <> OLD.stream THEN
      RAISE EXCEPTION 'ledger stream % may not be renamed', OLD.stream
        USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF OLD.archived_in IS NOT NULL THEN
      IF NEW.head_seq <> OLD.head_seq OR NEW.head_hash <> OLD.head_hash THEN
        RAISE EXCEPTION 'stream % is archived (archive %): appends are refused', OLD.stream, OLD.archived_in
          USING ERRCODE = 'LA001';
      END IF;
      IF NEW.archived_in IS DISTINCT FROM OLD.archived_in OR NEW.archived_at IS DISTINCT FROM OLD.archived_at THEN
        RAISE EXCEPTION 'stream % is archived (archive %): its archive may not be changed or cleared', OLD.stream, OLD.archived_in
          USING ERRCODE = 'insufficient_privilege';
      END IF;
      RETURN NEW;
    END IF;
    IF NEW.archived_in IS NOT NULL THEN
      IF NEW.head_seq <> OLD.head_seq OR NEW.head_hash <> OLD.head_hash THEN
        RAISE EXCEPTION 'ledger stream % may not move its head while it is archived', OLD.stream
          USING ERRCODE = 'insufficient_privilege';
      END IF;
      RETURN NEW;
    END IF;
    IF NEW.head_seq <= OLD.head_seq THEN
      RAISE EXCEPTION 'ledger stream % may only advance (head % -> %)', OLD.stream, OLD.head_seq, NEW.head_seq
        USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'ledger_streams rows are permanent: % is not allowed', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END
$$;
