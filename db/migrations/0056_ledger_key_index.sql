-- WAL per job (issue 23's diet): reads by effect key go by the key's task's stream on
-- ledger_entries_stream_seq_key, which every append writes anyway (lib/server/queries/
-- ledger-by-key.ts): every keyed entry is on the stream of its task (the key is derived from the
-- task id), named by the key's effect row or, for an approval whose effect never ran, by the
-- approval's. So the (key, id) index goes: 408 bytes of WAL per job. Dropping an index of the
-- partitioned table drops its partitions'. The task index stays: a long task's page of the
-- ledger walks it newest first, and by the stream it would sort every entry of the task.
DROP INDEX ledger_entries_key_idx;
