// The worker loop: claim batches with FOR UPDATE SKIP LOCKED, run up to `concurrency` attempts,
// renew leases by heartbeat, reap the leases of crashed workers, wake on LISTEN/NOTIFY with a
// polling fallback, and on stop finish in-flight work or hand it back within a grace period.
// The database going away is an event here, not a crash: every loop retries with backoff, and
// once the leases can no longer be proven the in-flight attempts are abandoned until it is back.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { z } from "zod";
import { retryOnConnectionError } from "../../db/retry";
import { assertSchemaCurrent } from "../../db/schema-version";
import { errorFields, logger } from "../../lib/log";
import { isKeyed } from "../../lib/sdk/concurrency-key";
import { TASKS_CHANNEL } from "../../lib/server/commands/insert-tasks";
import { publishCatalog } from "./catalog";
import { type ClaimedAttempt, claimBatch, handBackUnknownClaims } from "./claim-batch";
import { completionBatcher } from "./completion-batch";
import { claimPlanner, fillConcurrencyKeys } from "./concurrency";
import { effectBatchers } from "./effect-batch";
import { SuspendError } from "./errors";
import { HOUSEKEEPING_MS, startHousekeeping } from "./housekeeping";
import { JOINS_CHANNEL, joinWaker } from "./join";
import { startListener } from "./listener";
import { startPeriodic } from "./periodic";
import { markWorkerStopped, registerWorker } from "./presence";
import { reapExpiredLeases } from "./reaper";
import { startCheckRunner } from "./reconcile-checks";
import { runAttempt } from "./run-attempt";
import { publishSchedules, SCHEDULE_TICK_MS, tickSchedules } from "./schedules";
import { callbackLogger, type RunningWorker, type WorkerConfig } from "./worker-config";
import { dbHealth, startHeartbeat } from "./worker-leases";

/** Reviewers' provider checks arrive by notification: polled for at most this often. */
const CHECK_POLL_MS = 5_000;
/** A claim waits, while attempts are in flight, for this many free slots (or all, if fewer)... */
const CLAIM_GATHER_SLOTS = 4;
/** ...but no longer than this. */
const CLAIM_GATHER_MS = 3;
/** Admins' concurrency overrides for agents without a limit in code: re-read at most this often. */
const PLAN_REFRESH_MS = 1_000;

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
  /** Sleeps until woken (a NOTIFY, a freed slot) or `ms` passed. */
  const nap = async (ms: number) => {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    wake = remember;
  };

  // One view of "can we reach the database", so an outage is logged once, not by every loop.
  const { health, dbFailed, dbAnswered } = dbHealth(log);

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

  const joins = joinWaker(config.pool, (err: unknown) => dbFailed("join wake", err));
  const listener = startListener({
    clientConfig: {
      ...config.pool.options,
      application_name: `${config.pool.options.application_name ?? "agent-ledger"}-listen`,
    },
    channels: {
      [TASKS_CHANNEL]: () => {
        wake();
        checks.wake();
      },
      // A child's end that woke no parent: looked at again now that it committed (join.ts).
      [JOINS_CHANNEL]: (payload) => {
        const parent = z.uuid().safeParse(payload);
        if (parent.success) joins.add(parent.data);
        else log.warn({ payload }, `ignored a notification on ${JOINS_CHANNEL}: not a task id`);
      },
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
      // Then, while attempts are still in flight, wait a moment (at most CLAIM_GATHER_MS) for
      // CLAIM_GATHER_SLOTS free slots: a process of few slots otherwise claims one or two tasks
      // at a time, and its attempts drift apart so that each later statement (the effect's
      // claim, the completion) carries one or two as well (issue 23's scale-out: 4 processes of
      // 4 sent 1.9 bookkeeping statements per task against 0.5 for one process of 16).
      const gathered = Math.min(CLAIM_GATHER_SLOTS, config.concurrency);
      const until = Date.now() + CLAIM_GATHER_MS;
      while (!stopping && active.size > 0 && config.concurrency - active.size < gathered) {
        const left = until - Date.now();
        if (left <= 0) break;
        await nap(left);
      }
      if (stopping) break;
      const free = config.concurrency - active.size;
      let claimed = 0;
      if (free > 0 && agentNames.length > 0) {
        try {
          if (health.unknownClaims) {
            const handed = await handBackUnknownClaims(config.pool, id, new Set(active.keys()));
            health.unknownClaims = false;
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
      await nap(pollMs);
    }
  })();

  const beats = startHeartbeat({
    pool: config.pool,
    id,
    leaseMs,
    active,
    provenUntil,
    log,
    health,
    dbFailed,
    dbAnswered,
  });

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
    beats.halt();
    clearInterval(reap);
    await listener.stop();
    await joins.idle();
    await beats.presence();
    await markWorkerStopped(config.pool, id).catch(beats.presenceFailed);
  };

  log.info(
    { agents: agentNames, concurrency: config.concurrency },
    agentNames.length > 0
      ? `ready: agents ${agentNames.join(", ")}; concurrency ${config.concurrency}`
      : "ready, but no agents are registered: nothing to run",
  );
  return { id, stop, active: () => active.size, acting: () => health.acting };
}
