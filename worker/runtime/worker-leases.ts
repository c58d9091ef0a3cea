// What keeps this worker's claims honest: one view of whether the database answers (an outage
// is logged once, not by every loop), the heartbeat that renews the leases and the worker's
// presence, and the guard that abandons attempts whose lease can no longer be proven.
import type pg from "pg";
import { backoffDelay, CommitInDoubtError, isConnectionError } from "../../db/retry";
import { errorFields, type Logger } from "../../lib/log";
import { LeaseLostError } from "./errors";
import { touchWorker } from "./presence";
import { extendEffectLeases, heartbeat } from "./task-sql";

/** One view of "can we reach the database", shared by the worker's loops. */
export type DbHealth = {
  downSince: number | undefined;
  /** False while the database has been unreachable longer than the lease: nothing is acted on. */
  acting: boolean;
  /** Set by a claim whose COMMIT answer was lost, or by attempts abandoned in an outage. */
  unknownClaims: boolean;
};

export function dbHealth(log: Logger): {
  health: DbHealth;
  dbFailed: (what: string, err: unknown) => void;
  dbAnswered: () => void;
} {
  const health: DbHealth = { downSince: undefined, acting: true, unknownClaims: false };
  const dbFailed = (what: string, err: unknown) => {
    if (!isConnectionError(err)) {
      log.error({ ...errorFields(err), what }, `${what} failed`);
      return;
    }
    if (err instanceof CommitInDoubtError && what === "claim") health.unknownClaims = true;
    if (health.downSince === undefined) {
      health.downSince = Date.now();
      log.warn(
        { ...errorFields(err), what },
        "database unreachable; retrying with backoff (polling meanwhile)",
      );
    } else {
      log.debug({ ...errorFields(err), what }, `${what} failed: database still unreachable`);
    }
  };
  const dbAnswered = () => {
    if (health.downSince === undefined && health.acting) return;
    const downMs = health.downSince === undefined ? 0 : Date.now() - health.downSince;
    health.downSince = undefined;
    log.info(
      { downMs },
      health.acting ? "database answers again" : "database answers again; claiming resumes",
    );
    health.acting = true;
  };
  return { health, dbFailed, dbAnswered };
}

/**
 * Renews the leases of the attempts in `active` every third of the lease, and abandons those
 * whose lease can no longer be proven. `halt` stops both; `presence` is the write under way.
 */
export function startHeartbeat(opts: {
  pool: pg.Pool;
  id: string;
  leaseMs: number;
  active: Map<string, AbortController>;
  /** Until when (our clock) each task's lease is proven: sent-at of its last renewal + leaseMs. */
  provenUntil: Map<string, number>;
  log: Logger;
  health: DbHealth;
  dbFailed: (what: string, err: unknown) => void;
  dbAnswered: () => void;
}): {
  halt: () => void;
  presence: () => Promise<void> | undefined;
  presenceFailed: (err: unknown) => void;
} {
  const { pool, id, leaseMs, active, provenUntil, log, health, dbFailed, dbAnswered } = opts;
  // Past this, another worker's reaper may already have our tasks: stop before it can.
  const margin = Math.min(1_000, Math.floor(leaseMs / 10));
  let beatSentAt: number | undefined;
  const abandonUnproven = () => {
    const now = Date.now();
    // Only an outage counts (errors from the server, or a heartbeat with no answer for a whole
    // lease): a slow but answering database renews late, and a lease it let expire is reported
    // as lost by the heartbeat itself.
    const unreachable =
      health.downSince !== undefined || (beatSentAt !== undefined && now - beatSentAt > leaseMs);
    if (!unreachable) return;
    const unproven = [...active.entries()].filter(
      ([taskId]) => now >= (provenUntil.get(taskId) ?? 0) - margin,
    );
    if (unproven.length === 0) return;
    if (health.acting) {
      health.acting = false;
      log.error(
        {
          tasks: unproven.map(([taskId]) => taskId),
          leaseMs,
          downMs: now - (health.downSince ?? now),
        },
        "database unreachable longer than the lease: abandoning in-flight attempts, acting on nothing until it answers",
      );
    }
    for (const [taskId, controller] of unproven) {
      controller.abort(
        new LeaseLostError(`could not renew the lease on task ${taskId}: database unreachable`),
      );
    }
    // Those tasks are still ours in the database; hand them back once it answers.
    health.unknownClaims = true;
  };

  // The heartbeat already logs an outage; a presence write is only ever retried by the next tick.
  let presence: Promise<void> | undefined;
  const presenceFailed = (err: unknown) => {
    if (!isConnectionError(err)) log.warn(errorFields(err), "could not record worker presence");
  };

  let beatTimer: NodeJS.Timeout | undefined;
  let beatFailures = 0;
  let beatStopped = false;
  const beatEvery = Math.max(50, Math.floor(leaseMs / 3));
  const beat = async () => {
    try {
      const ids = [...active.keys()];
      const sentAt = Date.now();
      beatSentAt = sentAt;
      const lost = await heartbeat(pool, id, ids, leaseMs);
      const lostSet = new Set(lost);
      for (const taskId of ids) {
        if (!lostSet.has(taskId) && active.has(taskId)) provenUntil.set(taskId, sentAt + leaseMs);
      }
      for (const taskId of lost) {
        log.warn({ task: taskId }, "lost the lease on the task; abandoning its attempt");
        active.get(taskId)?.abort(new Error("lease lost"));
      }
      await extendEffectLeases(pool, id, leaseMs);
      dbAnswered();
      beatFailures = 0;
    } catch (err) {
      dbFailed("heartbeat", err);
      beatFailures++;
    }
    beatSentAt = undefined;
    abandonUnproven();
    // Presence after the leases, only when they were renewed (in an outage it would fail too),
    // and not awaited: a presence write stuck on a dying connection must not hold the next beat.
    if (beatFailures === 0 && presence === undefined) {
      presence = touchWorker(pool, id)
        .catch(presenceFailed)
        .finally(() => {
          presence = undefined;
        });
    }
    if (beatStopped) return;
    // After a failure, try again soon: the lease must be renewed as soon as the server is back.
    const next =
      beatFailures === 0
        ? beatEvery
        : Math.min(beatEvery, backoffDelay(beatFailures - 1, { initialMs: 50, maxMs: 1_000 }));
    beatTimer = setTimeout(() => void beat(), next);
  };
  beatTimer = setTimeout(() => void beat(), beatEvery);
  // Leases run out on the clock whether or not a heartbeat is stuck waiting for a server.
  const guard = setInterval(abandonUnproven, Math.max(25, Math.floor(margin / 2)));
  return {
    halt: () => {
      beatStopped = true;
      clearTimeout(beatTimer);
      clearInterval(guard);
    },
    presence: () => presence,
    presenceFailed,
  };
}
