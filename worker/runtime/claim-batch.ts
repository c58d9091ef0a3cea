// One transaction per claimed batch: take the tasks and read what their attempts need (policy
// rows, journals) in one statement, and write every attempt.started entry with one multi-stream append.
import type pg from "pg";
import { withTransaction } from "../../db/client";
import type { RateLimitSpec } from "../../lib/domain/rate-limit";
import { type HeadRef, noteAppended } from "../../lib/server/ledger/append-known-head";
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
  /** The task stream's head after attempt.started: the attempt's own appends go on it unlocked. */
  head: HeadRef;
  /** The attempt.started entry's id (on the attempt's span). */
  startedEntryId?: number;
};

const versionOf = (versions: ReadonlyMap<string, string>, agent: string) => {
  const version = versions.get(agent);
  return version === undefined ? {} : { version };
};

export async function claimBatch(
  pool: pg.Pool,
  worker: string,
  agents: readonly string[],
  limit: number,
  leaseMs: number,
  /** Each agent's code version (catalog.ts), recorded on its attempt.started entries. */
  versions: ReadonlyMap<string, string> = new Map(),
  /**
   * Agents with a concurrency limit (concurrency.ts), claimed first, each under its claim lock
   * taken in name order (so two workers never wait on each other's in a cycle); `agents` are
   * claimed after them with the places left.
   */
  limited: readonly LimitedAgent[] = [],
): Promise<ClaimedAttempt[]> {
  const claimed = await withTransaction(pool, async (client) => {
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
      tasks.push(...(await claimTasks(client, worker, agents, limit - tasks.length, leaseMs)));
    }
    if (tasks.length === 0) return undefined;
    const started = await appendLedgerMany(
      client,
      tasks.map((t) => ({
        stream: taskStream(t.id),
        kind: "attempt.started",
        actor: `worker:${worker}`,
        taskId: t.id,
        data: { attempt: t.attempts, agent: t.agent, ...versionOf(versions, t.agent) },
      })),
    );
    return { tasks, started };
  });
  if (!claimed) return [];
  // Heads are noted once committed: one ahead of the stream would make every append refused.
  const { tasks, started } = claimed;
  return tasks.map(({ journal, policies, tool_limits, ...task }) => {
    const head: HeadRef = { stream: taskStream(task.id) };
    noteAppended(head, started);
    const steps = new Map<number, JournaledStep>(
      journal.map((s) => [
        s.seq,
        { seq: s.seq, kind: s.kind, name: s.name, result: s.result, effectKey: s.effect_key },
      ]),
    );
    const toolLimits = new Map(
      tool_limits.map((l) => [l.tool, { limit: l.limit, periodMs: l.periodMs }]),
    );
    const startedEntryId = started.find((e) => e.stream === head.stream)?.id;
    return { task, journal: steps, policyRows: policies, toolLimits, head, startedEntryId };
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
