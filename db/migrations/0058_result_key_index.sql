-- An effect's recorded result (effect.succeeded, or outcome.resolved for an unknown outcome a
-- person confirmed) found by its key: the task page and GET /effects/{key} read it for every
-- effect of a task, and by the task's stream alone that walked every entry of the stream (a
-- 20,000-entry task: 14-19 ms at 1M, growing with the task). One index entry per effect, not
-- per keyed entry as the (key, id) index 0056 dropped.
CREATE INDEX "ledger_entries_result_key_idx" ON "ledger_entries" USING btree ("key") WHERE "ledger_entries"."kind" in ('effect.succeeded', 'outcome.resolved');