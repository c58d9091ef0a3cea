// One transaction per claimed batch: take the tasks, read what their attempts need (policy rows,
// journals), and write every attempt.started entry with a single multi-stream append.
import type pg from "pg";
import { withTransaction } from "../../db/client";
import { appendLedgerMany, taskStream } from "../../lib/server/ledger/append-ledger";
import { type JournaledStep, loadJournals } from "./journal";
import { loadPolicyRows, type PolicyRow } from "./policy";
import { type ClaimedTask, claimTasks } from "./task-sql";

export type ClaimedAttempt = {
  task: ClaimedTask;
  journal: Map<number, JournaledStep>;
  policyRows: PolicyRow[];
};

export async function claimBatch(
  pool: pg.Pool,
  worker: string,
  agents: readonly string[],
  limit: number,
  leaseMs: number,
): Promise<ClaimedAttempt[]> {
  return withTransaction(pool, async (client) => {
    const tasks = await claimTasks(client, worker, agents, limit, leaseMs);
    if (tasks.length === 0) return [];
    const ids = tasks.map((t) => t.id);
    const [policyRows, journals] = [
      await loadPolicyRows(client, [...new Set(tasks.map((t) => t.agent))]),
      await loadJournals(client, ids),
    ];
    await appendLedgerMany(
      client,
      tasks.map((t) => ({
        stream: taskStream(t.id),
        kind: "attempt.started",
        actor: `worker:${worker}`,
        taskId: t.id,
        data: { attempt: t.attempts, agent: t.agent },
      })),
    );
    return tasks.map((task) => ({
      task,
      journal: journals.get(task.id) ?? new Map(),
      policyRows,
    }));
  });
}
