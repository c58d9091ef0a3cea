-- One claim index, by agent (issue 23, WAL diet): every claim names its agents and walks
-- tasks_agent_claim_idx; the index without the agent served only the metrics' queue figures,
-- which now skip through the agent one by agent and priority. An entry per enqueue, 113 bytes
-- of WAL per job.
DROP INDEX "tasks_claim_idx";
