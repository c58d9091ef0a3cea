// Tasks whose worker crashed: the lease ran out without a heartbeat. Each counts as a failed
// attempt (worker.lost) and goes to retry or, past the limit, to the dead letters.
import type pg from "pg";
import { withTransaction } from "../../db/client";
import { attemptStartData, withAttemptStart } from "../../lib/domain/attempt-start";
import {
  appendLedger,
  type NewLedgerEntry,
  taskStream,
} from "../../lib/server/ledger/append-ledger";
import { recordLapsedClaims } from "./effect-claim";
import { decideFailure, loadPolicy } from "./policy";
import { failExpired, lockExpiredLeases } from "./task-sql";
import { lostAttemptSpan } from "./tracing";

export async function reapExpiredLeases(
  pool: pg.Pool,
  reaper: string,
  agentPolicies: ReadonlyMap<string, { policy?: Parameters<typeof loadPolicy>[2] }>,
  // Small committed batches: a worker dying mid-reap rolls back only a few.
  limit = 10,
  random: () => number = Math.random,
): Promise<number> {
  const reaped = await withTransaction(pool, async (client) => {
    const expired = await lockExpiredLeases(client, [...agentPolicies.keys()], limit);
    for (const task of expired) {
      const policy = await loadPolicy(
        client,
        task.agent,
        agentPolicies.get(task.agent)?.policy,
        task.policy,
      );
      const error = {
        name: "WorkerLost",
        message: `worker ${task.lease_owner} stopped renewing its lease during attempt ${task.attempts}`,
      };
      const decision = decideFailure(
        new Error(error.message),
        task.attempts - task.attempt_base,
        policy,
        random(),
        new Date(),
      );
      await failExpired(client, task, decision.outcome, error);
      const base = { kind: "", actor: `worker:${reaper}`, taskId: task.id };
      const lost = { attempt: task.attempts, worker: task.lease_owner };
      const entries: NewLedgerEntry[] = [
        {
          ...base,
          kind: "worker.lost",
          // An attempt that wrote nothing (its start rides on its first entry) still shows:
          // the entry that closes it says it started, on whose worker and when.
          data: task.start_written
            ? lost
            : withAttemptStart(
                lost,
                attemptStartData({
                  attempt: task.attempts,
                  agent: task.agent,
                  at: task.started_at,
                  actor: `worker:${task.lease_owner}`,
                }),
              ),
        },
      ];
      // Dead: no later attempt will find the claims this one left lapsed; they are recorded now.
      if (decision.outcome.status !== "retry_wait") {
        entries.push(
          ...(await recordLapsedClaims(
            client,
            task,
            base.actor,
            `its claimer, worker ${task.lease_owner}, was lost and the task was dead-lettered (${decision.outcome.reason})`,
          )),
        );
      }
      entries.push(
        decision.outcome.status === "retry_wait"
          ? {
              ...base,
              kind: "retry.scheduled",
              data: { attempt: task.attempts, runAt: decision.outcome.runAt.toISOString() },
            }
          : {
              ...base,
              kind: "task.dead_lettered",
              data: { attempt: task.attempts, reason: decision.outcome.reason, error },
            },
      );
      await appendLedger(client, taskStream(task.id), entries);
    }
    return expired;
  });
  // Once committed: the crashed attempts' spans, which their workers never ended.
  for (const task of reaped) lostAttemptSpan(task, task.started_at, task.lease_owner);
  return reaped.length;
}
