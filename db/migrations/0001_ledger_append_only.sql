-- The ledger is append-only, enforced twice: triggers reject UPDATE, DELETE and TRUNCATE for
-- everyone (the owner included), and the application role is granted only SELECT and INSERT.
-- The application role is a group role: grant it to whatever login your app uses.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'agent_ledger_app') THEN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = current_user AND (rolsuper OR rolcreaterole)) THEN
      CREATE ROLE agent_ledger_app NOLOGIN;
    ELSE
      RAISE EXCEPTION 'role agent_ledger_app does not exist and % may not create it; create it first (CREATE ROLE agent_ledger_app NOLOGIN) and migrate again', current_user;
    END IF;
  END IF;
END
$$;
--> statement-breakpoint
CREATE FUNCTION ledger_reject_mutation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger_entries is append-only: % is not allowed; append a correction entry instead', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END
$$;
--> statement-breakpoint
CREATE TRIGGER ledger_entries_no_update_delete
  BEFORE UPDATE OR DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_reject_mutation();
--> statement-breakpoint
CREATE TRIGGER ledger_entries_no_truncate
  BEFORE TRUNCATE ON ledger_entries
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_reject_mutation();
--> statement-breakpoint
-- A stream head only moves forward and a stream is never removed.
CREATE FUNCTION ledger_streams_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF NEW.stream <> OLD.stream OR NEW.head_seq <= OLD.head_seq THEN
      RAISE EXCEPTION 'ledger stream % may only advance (head % -> %)', OLD.stream, OLD.head_seq, NEW.head_seq
        USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'ledger_streams rows are permanent: % is not allowed', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END
$$;
--> statement-breakpoint
CREATE TRIGGER ledger_streams_guard_row
  BEFORE UPDATE OR DELETE ON ledger_streams
  FOR EACH ROW EXECUTE FUNCTION ledger_streams_guard();
--> statement-breakpoint
CREATE TRIGGER ledger_streams_no_truncate
  BEFORE TRUNCATE ON ledger_streams
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_streams_guard();
--> statement-breakpoint
GRANT USAGE ON SCHEMA public TO agent_ledger_app;
--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE, DELETE ON tasks, steps, effects, retry_policies TO agent_ledger_app;
--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE ON ledger_streams TO agent_ledger_app;
--> statement-breakpoint
REVOKE ALL ON ledger_entries FROM PUBLIC;
--> statement-breakpoint
GRANT SELECT, INSERT ON ledger_entries TO agent_ledger_app;
--> statement-breakpoint
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO agent_ledger_app;
--> statement-breakpoint
-- Tables that later migrations create are usable by the app without a grant per table; a
-- later append-only table must revoke what it does not allow, as ledger_entries does above.
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO agent_ledger_app;
--> statement-breakpoint
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO agent_ledger_app;
--> statement-breakpoint
-- /api/health reports the migration version as the app role.
GRANT USAGE ON SCHEMA drizzle TO agent_ledger_app;
--> statement-breakpoint
GRANT SELECT ON drizzle.__drizzle_migrations TO agent_ledger_app;
