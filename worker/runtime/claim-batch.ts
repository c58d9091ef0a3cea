// One transaction per claimed batch: take the tasks and read what their attempts need (policy
// rows, journals, each task stream's head) in one statement. The claim writes no entry: each
// attempt's start rides on its first entry (HeadRef.start, append-known-head.ts).
import type pg from "pg";
import { withTransaction } from "../../db/client";
import { CommitInDoubtError, isConnectionError } from "../../db/retry";
import { attemptStartData } from "../../lib/domain/attempt-start";
import type { RateLimitSpec } from "../../lib/domain/rate-limit";
import type { HeadRef } from "../../lib/server/ledger/append-known-head";
import { appendLedgerMany, taskStream } from "../../lib/server/ledger/append-ledger";
import type { LimitedAgent } from "./concurrency";
import { claimLimitedTasks, lockAgentClaims } from "./concurrency-sql";
import type { JournaledStep } from "./journal";
import type { PolicyRow } from "./policy";
import {
  type ClaimedRow,
  type ClaimedTask,
  claimTasks,
  heldTasks,
  notifyRunnable,
  requeueTask,
} from "./task-sql";

export type ClaimedAttempt = {
  task: ClaimedTask;
  journal: Map<number, JournaledStep>;
  policyRows: PolicyRow[];
  /** Admins' tool rate limits by tool, in force for this attempt's calls. */
  toolLimits: ReadonlyMap<string, RateLimitSpec>;
  /**
   * The task stream's head as the claim read it (the attempt's own appends go on it unlocked),
   * and the attempt's start, which its first entry carries.
   */
  head: HeadRef;
};

export async function claimBatch(
  pool: pg.Pool,
  worker: string,
  agents: readonly string[],
  limit: number,
  leaseMs: number,
  /** Each agent's code version (catalog.ts), recorded with each attempt's start. */
  versions: ReadonlyMap<string, string> = new Map(),
  /**
   * Agents with a concurrency limit (concurrency.ts), claimed first, each under its claim lock
   * taken in name order (so two workers never wait on each other's in a cycle); `agents` are
   * claimed after them with the places left.
   */
  limited: readonly LimitedAgent[] = [],
): Promise<ClaimedAttempt[]> {
  const claimed =
    limited.length === 0
      ? await claimAlone(pool, worker, agents, limit, leaseMs)
      : await withTransaction(pool, async (client) => {
          const tasks: ClaimedRow[] = [];
          const byName = [...limited].sort((a, b) =>
            a.agent < b.agent ? -1 : a.agent > b.agent ? 1 : 0,
          );
          for (const agent of byName) {
            if (tasks.length >= limit) break;
            await lockAgentClaims(client, agent.agent);
            tasks.push(
              ...(await claimLimitedTasks(client, worker, agent, limit - tasks.length, leaseMs)),
            );
          }
          if (tasks.length < limit && agents.length > 0) {
            tasks.push(
              ...(await claimTasks(client, worker, agents, limit - tasks.length, leaseMs)),
            );
          }
          return tasks;
        });
  return claimed.map(
    ({ journal, policies, tool_limits, head_seq, head_hash, head_at, ...task }) => {
      const head: HeadRef = {
        stream: taskStream(task.id),
        start: attemptStartData({
          attempt: task.attempts,
          agent: task.agent,
          version: versions.get(task.agent),
          at: task.claimed_at,
        }),
      };
      if (head_seq !== null && head_hash !== null && head_at !== null) {
        head.current = { seq: Number(head_seq), hash: head_hash, at: head_at };
      }
      const steps = new Map<number, JournaledStep>(
        journal.map((s) => [
          s.seq,
          { seq: s.seq, kind: s.kind, name: s.name, result: s.result, effectKey: s.effect_key },
        ]),
      );
      const toolLimits = new Map(
        tool_limits.map((l) => [l.tool, { limit: l.limit, periodMs: l.periodMs }]),
      );
      return { task, journal: steps, policyRows: policies, toolLimits, head };
    },
  );
}

/**
 * The plain claim, one statement that writes nothing but the rows it takes: no transaction of
 * its own. A connection lost under it may have committed, as a lost COMMIT answer may.
 */
async function claimAlone(
  pool: pg.Pool,
  worker: string,
  agents: readonly string[],
  limit: number,
  leaseMs: number,
): Promise<ClaimedRow[]> {
  if (agents.length === 0) return [];
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    return await claimTasks(client, worker, agents, limit, leaseMs);
  } catch (err) {
    if (!isConnectionError(err)) throw err;
    // A client whose connection died is discarded, not handed to the next caller.
    broken = err instanceof Error ? err : new Error(String(err));
    throw new CommitInDoubtError(err);
  } finally {
    client.release(broken);
  }
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
      // No attempt's start: the claim wrote none, and the requeue gives the attempt back
      // (uncounted). An abandoned attempt that wrote entries carried its start on the first.
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
