// One transaction per claimed batch: take the tasks, read what their attempts need (policy rows,
// journals), and write every attempt.started entry with a single multi-stream append.
import type pg from "pg";
import { withTransaction } from "../../db/client";
import { appendLedgerMany, taskStream } from "../../lib/server/ledger/append-ledger";
import { type JournaledStep, loadJournals } from "./journal";
import { loadPolicyRows, type PolicyRow } from "./policy";
import { type ClaimedTask, claimTasks, heldTasks, notifyRunnable, requeueTask } from "./task-sql";

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

/**
 * After a claim whose COMMIT answer was lost: tasks the database says we hold but no attempt of
 * ours runs. Handed back at once, without spending an attempt (we never started them), rather
 * than left to expire and be counted as a crashed worker's.
 */
export async function handBackUnknownClaims(
  pool: pg.Pool,
  worker: string,
  running: ReadonlySet<string>,
): Promise<string[]> {
  const orphans = (await heldTasks(pool, worker)).filter((id) => !running.has(id));
  const handed: string[] = [];
  for (const id of orphans) {
    const done = await withTransaction(pool, async (client) => {
      // Guarded like every lease write: a task reaped or finished meanwhile is left alone.
      if (!(await requeueTask(client, worker, id, null))) return false;
      await notifyRunnable(client, id);
      await appendLedgerMany(client, [
        {
          stream: taskStream(id),
          kind: "task.requeued",
          actor: `worker:${worker}`,
          taskId: id,
          data: {
            why: "held without a running attempt: a claim whose answer was lost, or an attempt abandoned while the database was unreachable",
          },
        },
      ]);
      return true;
    });
    if (done) handed.push(id);
  }
  return handed;
}
