// The worker loop: claim batches with FOR UPDATE SKIP LOCKED, run up to `concurrency` attempts,
// renew leases by heartbeat, reap the leases of crashed workers, wake on LISTEN/NOTIFY with a
// polling fallback, and on stop finish in-flight work or hand it back within a grace period.
// The database going away is an event here, not a crash: every loop retries with backoff, and
// once the leases can no longer be proven the in-flight attempts are abandoned until it is back.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type pg from "pg";
import pino from "pino";
import {
  backoffDelay,
  CommitInDoubtError,
  isConnectionError,
  retryOnConnectionError,
} from "../../db/retry";
import type { WorkerRole } from "../../db/schema/workers";
import { assertSchemaCurrent } from "../../db/schema-version";
import type { CallbackSigning } from "../../lib/domain/callback-token";
import { errorFields, type Logger, logger } from "../../lib/log";
import { isKeyed } from "../../lib/sdk/concurrency-key";
import type { Agent } from "../../lib/sdk/define";
import type { ModelClient } from "../../lib/sdk/model";
import { TASKS_CHANNEL } from "../../lib/server/commands/insert-tasks";
import { publishCatalog } from "./catalog";
import { type ClaimedAttempt, claimBatch, handBackUnknownClaims } from "./claim-batch";
import { completionBatcher } from "./completion-batch";
import { claimPlanner, fillConcurrencyKeys } from "./concurrency";
import { effectBatchers } from "./effect-batch";
import { LeaseLostError, SuspendError } from "./errors";
import { HOUSEKEEPING_MS, startHousekeeping } from "./housekeeping";
import { startListener } from "./listener";
import { startPeriodic } from "./periodic";
import { markWorkerStopped, registerWorker, touchWorker } from "./presence";
import { reapExpiredLeases } from "./reaper";
import { startCheckRunner } from "./reconcile-checks";
import { type AttemptOutcome, runAttempt } from "./run-attempt";
import { publishSchedules, SCHEDULE_TICK_MS, tickSchedules } from "./schedules";
import { extendEffectLeases, heartbeat } from "./task-sql";

export type WorkerConfig = {
  pool: pg.Pool;
  agents: readonly Agent[];
  concurrency: number;
  model?: ModelClient;
  /** Signs ctx.callbackUrl links (start-worker.ts). */
  callbacks?: CallbackSigning;
  /** Task lease; renewed every third of it. A crashed worker's tasks return after this long. */
  leaseMs?: number;
  pollMs?: number;
  /** How often the worker deletes expired events and idle rate-limit buckets (housekeeping.ts). */
  housekeepingMs?: number;
  id?: string;
  /**
   * `alerts`: the web server's alert-delivery worker, which the no_live_worker rule does not
   * count (it is there precisely when the fleet is not). Default `worker`.
   */
  role?: WorkerRole;
  /** Where log lines go; default lib/log's "worker" logger with the worker id. */
  logger?: Logger;
  /** Receives each log line's message instead (tests pass () => {} to keep quiet). */
  log?: (message: string) => void;
  /** Called after every attempt (tests and the chaos harness count outcomes). */
  onAttempt?: (taskId: string, outcome: AttemptOutcome | "error") => void;
};

export type RunningWorker = {
  id: string;
  /** Stops claiming, waits up to `graceMs` for in-flight attempts, then hands the rest back. */
  stop: (graceMs?: number) => Promise<void>;
  /** Tasks running right now. */
  active: () => number;
  /** False while the database has been unreachable longer than the lease: nothing is acted on. */
  acting: () => boolean;
};

/** Reviewers' provider checks arrive by notification: polled for at most this often. */
const CHECK_POLL_MS = 5_000;
/** Admins' concurrency overrides for agents without a limit in code: re-read at most this often. */
const PLAN_REFRESH_MS = 1_000;

function callbackLogger(fn: (message: string) => void): Logger {
  return pino(
    { level: "debug", base: undefined, timestamp: false },
    {
      write: (line: string) => {
        const parsed = JSON.parse(line) as { msg?: unknown };
        fn(String(parsed.msg ?? ""));
      },
    },
  );
}

export async function startWorker(config: WorkerConfig): Promise<RunningWorker> {
  const id = config.id ?? `${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
  const leaseMs = config.leaseMs ?? 30_000;
  const pollMs = config.pollMs ?? 1_000;
  const log = (config.logger ?? (config.log ? callbackLogger(config.log) : logger("worker"))).child(
    { worker: id },
  );
  const agents = new Map(config.agents.map((a) => [a.name, a]));
  const agentNames = [...agents.keys()];
  const active = new Map<string, AbortController>();
  /** Until when (our clock) each task's lease is proven: sent-at of its last renewal + leaseMs. */
  const provenUntil = new Map<string, number>();
  const running = new Set<Promise<void>>();
  let stopping = false;
  // A wake-up (a NOTIFY, a freed slot) that comes while a claim is in flight must not be lost:
  // that claim's snapshot may predate the task it announces, and the loop would then sleep a
  // whole poll interval with the task waiting. It is remembered and the loop claims again.
  let wakeMissed = false;
  const remember = () => {
    wakeMissed = true;
  };
  let wake: () => void = remember;

  // One view of "can we reach the database", so an outage is logged once, not by every loop.
  let downSince: number | undefined;
  let acting = true;
  /** Set by a claim whose COMMIT answer was lost, or by attempts abandoned in an outage. */
  let unknownClaims = false;
  const dbFailed = (what: string, err: unknown) => {
    if (!isConnectionError(err)) {
      log.error({ ...errorFields(err), what }, `${what} failed`);
      return;
    }
    if (err instanceof CommitInDoubtError && what === "claim") unknownClaims = true;
    if (downSince === undefined) {
      downSince = Date.now();
      log.warn(
        { ...errorFields(err), what },
        "database unreachable; retrying with backoff (polling meanwhile)",
      );
    } else {
      log.debug({ ...errorFields(err), what }, `${what} failed: database still unreachable`);
    }
  };
  const dbAnswered = () => {
    if (downSince === undefined && acting) return;
    const downMs = downSince === undefined ? 0 : Date.now() - downSince;
    downSince = undefined;
    log.info(
      { downMs },
      acting ? "database answers again" : "database answers again; claiming resumes",
    );
    acting = true;
  };

  // What this worker runs, for the web app (agent list, input forms, the two-person rule).
  // A worker started while the database restarts (a supervisor bringing it back) waits for it.
  // First, the schema must be the one this code ships: on any other it refuses to start
  // (SchemaVersionError, saying to migrate or to upgrade) before it publishes or claims anything.
  const role = config.role ?? "worker";
  const published = await retryOnConnectionError(
    async () => {
      const schema = await assertSchemaCurrent(config.pool, { who: "worker" });
      if (schema.changed.length > 0) log.warn({ changed: schema.changed }, schema.message);
      const entries = await publishCatalog(config.pool, config.agents, id);
      await publishSchedules(config.pool, config.agents, id);
      await registerWorker(config.pool, { id, role, agents: agentNames });
      return entries;
    },
    {
      giveUpAfterMs: 60_000,
      onRetry: (err, attempt, delayMs) =>
        attempt === 0 &&
        log.warn(
          { ...errorFields(err), retryInMs: delayMs },
          "database unreachable at start; waiting",
        ),
    },
  );

  // Each attempt's start (on its first entry) records the code version that runs it.
  const versions = new Map(published.map((e) => [e.name, e.version]));

  // Reviewers' "check with the provider" requests, answered beside the task loop. A request
  // notifies the workers, so polling only covers a missed notification or a claim whose worker
  // stopped: at most every CHECK_POLL_MS, not at the task loop's rate, which every process of a
  // fleet would otherwise pay in statements all the time.
  const checks = startCheckRunner({
    pool: config.pool,
    worker: id,
    agents,
    claimMs: leaseMs,
    pollMs: Math.max(pollMs, CHECK_POLL_MS),
    log,
  });

  // Every worker ticks its agents' schedules; the row lock and the enqueue key make one task
  // of each occurrence however many tick.
  const ticker = startPeriodic(SCHEDULE_TICK_MS, () =>
    tickSchedules(config.pool, agentNames, (message) => log.error(message)).then(
      () => undefined,
      (err: unknown) => dbFailed("schedule tick", err),
    ),
  );

  // Every worker may sweep the flow-control tables; one at a time does, the others skip.
  const housekeeping = startHousekeeping(
    config.pool,
    config.housekeepingMs ?? HOUSEKEEPING_MS,
    (err: unknown) => dbFailed("housekeeping", err),
    (done) => {
      if (done.events + done.rateLimits > 0) {
        log.debug({ ...done }, "deleted expired events and idle rate-limit buckets");
      }
    },
  );

  const listener = startListener({
    clientConfig: {
      ...config.pool.options,
      application_name: `${config.pool.options.application_name ?? "agent-ledger"}-listen`,
    },
    channel: TASKS_CHANNEL,
    onNotify: () => {
      wake();
      checks.wake();
    },
    onReconnect: () => {
      wake();
      checks.wake();
    },
    log,
  });
  await listener.ready;

  // Agents with a concurrency limit claim under it (issue 21); keyed ones key their tasks first.
  // The admin's overrides for agents without a limit in code are read at most once a second
  // (PLAN_REFRESH_MS), not once per claim round of a fast-polling worker.
  const planClaim = claimPlanner(config.pool, config.agents, Math.max(pollMs, PLAN_REFRESH_MS));
  const keyed = config.agents.filter(isKeyed);

  const effects = effectBatchers(config.pool, id);
  const complete = completionBatcher(config.pool, id, effects);
  const spawnAttempt = (claimed: ClaimedAttempt, claimSentAt: number) => {
    const { task } = claimed;
    const controller = new AbortController();
    active.set(task.id, controller);
    provenUntil.set(task.id, claimSentAt + leaseMs);
    const taskLog = log.child({ task: task.id, attempt: task.attempts });
    const p = runAttempt(
      {
        pool: config.pool,
        worker: id,
        agents,
        effectLeaseMs: leaseMs,
        model: config.model,
        callbacks: config.callbacks,
        signal: controller.signal,
        // Recording an outcome outlives a short outage; past twice the lease it is moot.
        recordRetryMs: Math.max(2 * leaseMs, 10_000),
        log: taskLog,
        complete,
        effects,
      },
      claimed,
    )
      .then(
        (outcome) => config.onAttempt?.(task.id, outcome),
        (err: unknown) => {
          taskLog.error(errorFields(err), "could not record the attempt");
          config.onAttempt?.(task.id, "error");
        },
      )
      .finally(() => {
        // A later attempt of the same task may have been claimed meanwhile: keep its entry.
        if (active.get(task.id) === controller) {
          active.delete(task.id);
          provenUntil.delete(task.id);
        }
        running.delete(p);
        wake();
      });
    running.add(p);
  };

  const loop = (async () => {
    while (!stopping) {
      // Claim at the end of this turn of the event loop, not at the first freed slot: attempts
      // whose last statement answered together all free their slots before the claim, so one
      // claim takes them all and they go on together, sharing their later statements (a
      // process with few in flight otherwise drifts into one-task claims and one-item batches).
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (stopping) break;
      const free = config.concurrency - active.size;
      let claimed = 0;
      if (free > 0 && agentNames.length > 0) {
        try {
          if (unknownClaims) {
            const handed = await handBackUnknownClaims(config.pool, id, new Set(active.keys()));
            unknownClaims = false;
            if (handed.length > 0) {
              log.info({ tasks: handed }, "handed back tasks held without a running attempt");
            }
          }
          for (const agent of keyed) await fillConcurrencyKeys(config.pool, agent);
          const plan = await planClaim();
          const sentAt = Date.now();
          wakeMissed = false;
          const tasks = await claimBatch(
            config.pool,
            id,
            plan.unlimited,
            free,
            leaseMs,
            versions,
            plan.limited,
          );
          dbAnswered();
          claimed = tasks.length;
          for (const task of tasks) spawnAttempt(task, sentAt);
        } catch (err) {
          dbFailed("claim", err);
        }
      }
      if (stopping) break;
      if (claimed > 0 && claimed === free) continue;
      if (wakeMissed) {
        wakeMissed = false;
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = remember;
    }
  })();

  // Past this, another worker's reaper may already have our tasks: stop before it can.
  const margin = Math.min(1_000, Math.floor(leaseMs / 10));
  let beatSentAt: number | undefined;
  const abandonUnproven = () => {
    const now = Date.now();
    // Only an outage counts (errors from the server, or a heartbeat with no answer for a whole
    // lease): a slow but answering database renews late, and a lease it let expire is reported
    // as lost by the heartbeat itself.
    const unreachable =
      downSince !== undefined || (beatSentAt !== undefined && now - beatSentAt > leaseMs);
    if (!unreachable) return;
    const unproven = [...active.entries()].filter(
      ([taskId]) => now >= (provenUntil.get(taskId) ?? 0) - margin,
    );
    if (unproven.length === 0) return;
    if (acting) {
      acting = false;
      log.error(
        { tasks: unproven.map(([taskId]) => taskId), leaseMs, downMs: now - (downSince ?? now) },
        "database unreachable longer than the lease: abandoning in-flight attempts, acting on nothing until it answers",
      );
    }
    for (const [taskId, controller] of unproven) {
      controller.abort(
        new LeaseLostError(`could not renew the lease on task ${taskId}: database unreachable`),
      );
    }
    // Those tasks are still ours in the database; hand them back once it answers.
    unknownClaims = true;
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
      const lost = await heartbeat(config.pool, id, ids, leaseMs);
      const lostSet = new Set(lost);
      for (const taskId of ids) {
        if (!lostSet.has(taskId) && active.has(taskId)) provenUntil.set(taskId, sentAt + leaseMs);
      }
      for (const taskId of lost) {
        log.warn({ task: taskId }, "lost the lease on the task; abandoning its attempt");
        active.get(taskId)?.abort(new Error("lease lost"));
      }
      await extendEffectLeases(config.pool, id, leaseMs);
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
      presence = touchWorker(config.pool, id)
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

  const reapNow = () =>
    reapExpiredLeases(config.pool, id, agents).then(
      (n) => {
        if (n > 0) log.info({ tasks: n }, "returned tasks of crashed workers to the queue");
      },
      // Safe to run again: a reap that did commit left nothing expired to reap twice.
      (err: unknown) => dbFailed("reaper", err),
    );
  // Reap at once too: a fleet whose workers die young must still recover expired leases.
  void reapNow();
  const reap = setInterval(() => void reapNow(), Math.max(100, Math.floor(leaseMs / 2)));

  const stop = async (graceMs = 10_000) => {
    if (stopping) return;
    stopping = true;
    wake();
    await loop;
    await ticker.stop();
    await housekeeping.stop();
    await checks.stop();
    let graceTimer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((r) => {
      graceTimer = setTimeout(r, graceMs);
    });
    await Promise.race([Promise.all(running), deadline]);
    clearTimeout(graceTimer);
    for (const controller of active.values()) {
      controller.abort(new SuspendError(new Date(), "the worker is shutting down"));
    }
    await Promise.all(running);
    beatStopped = true;
    clearTimeout(beatTimer);
    clearInterval(guard);
    clearInterval(reap);
    await listener.stop();
    await presence;
    await markWorkerStopped(config.pool, id).catch(presenceFailed);
  };

  log.info(
    { agents: agentNames, concurrency: config.concurrency },
    agentNames.length > 0
      ? `ready: agents ${agentNames.join(", ")}; concurrency ${config.concurrency}`
      : "ready, but no agents are registered: nothing to run",
  );
  return { id, stop, active: () => active.size, acting: () => acting };
}
