// W worker processes, kept at W: a worker that dies is replaced at once. Each death is
// attributed: the harness's own kill -9, or a named fault point (a generation arms exactly one
// point, so a SIGKILL nobody sent is that point firing), or something else (reported).
import type { WriteStream } from "node:fs";
import { childEnv } from "../../lib/env";
import { FAULT_POINTS, type FaultPoint } from "../../lib/server/fault-points";
import { DEMO_AGENTS_MODULE } from "../launch/demo-agents";
import { type Child, type Exit, spawnNode, stopChild, type Watchdog } from "./processes";
import { APPROVAL_THRESHOLD_CENTS } from "./workload";

/**
 * Crash probability at each hit of the armed point. A task passes `ledger.append` a dozen
 * times or more (every entry it writes, and the reaper's) and each other point about once,
 * hence the lower rate there.
 */
export const FAULT_PROBABILITY: Record<FaultPoint, number> = {
  "effect.started": 0.2,
  "effect.returned": 0.2,
  "model.call": 0.2,
  "ledger.append": 0.02,
  "spawn.enqueued": 0.2,
  "event.taken": 0.2,
  "schedule.tick": 0.2,
};

/**
 * The points the demo agents pass. They spawn no children, wait for no event and have no
 * schedule: spawn-crash, events-crash and schedule-fleet tests arm those.
 */
const ARMED_POINTS = FAULT_POINTS.filter(
  (p) => p !== "spawn.enqueued" && p !== "event.taken" && p !== "schedule.tick",
);

export type WorkerProcess = {
  slot: number;
  generation: number;
  faultPoint: FaultPoint | null;
  child: Child;
  /** The runtime's worker id (it leases tasks under it), once it printed its ready line. */
  workerId: string | null;
  readyAt: number | null;
  killedByHarness: boolean;
};

export type FleetConfig = {
  workers: number;
  concurrency: number;
  leaseMs: number;
  databaseUrl: string;
  smtpUrl: string;
  paymentsUrl: string;
  watchdog: Watchdog;
  log: WriteStream;
  /** A worker that exits on its own (not a signal) is news: say it. */
  warn: (message: string) => void;
  /** The fleet cannot keep W workers running: the run must stop. */
  fail: (err: Error) => void;
};

export type DeathCounts = {
  harness: number;
  faultPoints: Record<FaultPoint, number>;
  /** SIGKILLed by neither us nor an armed fault point (the OOM killer, say). */
  unexplained: number;
  /** Exited by themselves while they should have kept running. */
  exited: number;
};

/** The worker's id from its ready line: a JSON log line (lib/log) with `worker` and "ready: …". */
function readyWorkerId(line: string): string | null {
  if (!line.startsWith("{")) return null;
  try {
    const entry = JSON.parse(line) as { worker?: unknown; msg?: unknown };
    return typeof entry.worker === "string" &&
      typeof entry.msg === "string" &&
      entry.msg.startsWith("ready:")
      ? entry.worker
      : null;
  } catch {
    return null;
  }
}

export function startFleet(config: FleetConfig) {
  const live = new Map<number, WorkerProcess>();
  const deaths: DeathCounts = {
    harness: 0,
    faultPoints: Object.fromEntries(FAULT_POINTS.map((p) => [p, 0])) as Record<FaultPoint, number>,
    unexplained: 0,
    exited: 0,
  };
  /** When each worker that had printed its ready line died, by its runtime worker id. */
  const diedAt = new Map<string, number>();
  let generations = 0;
  let stopping = false;
  const earlyExits = new Map<number, number>();

  /** Slot 0 runs clean when there are others; a lone worker arms a point every other life. */
  const armed = (slot: number, generation: number) =>
    config.workers === 1 ? generation % 2 === 1 : slot !== 0;

  /** The point hit least so far (counting the ones armed right now), so every point gets hit. */
  const nextPoint = (): FaultPoint => {
    const load = (p: FaultPoint) =>
      deaths.faultPoints[p] + [...live.values()].filter((w) => w.faultPoint === p).length;
    const start = generations % ARMED_POINTS.length;
    const order = [...ARMED_POINTS.slice(start), ...ARMED_POINTS.slice(0, start)];
    return order.reduce((best, p) => (load(p) < load(best) ? p : best));
  };

  const spawnWorker = (slot: number) => {
    const generation = ++generations;
    const faultPoint = armed(slot, generation) ? nextPoint() : null;
    const worker: WorkerProcess = {
      slot,
      generation,
      faultPoint,
      child: spawnNode({
        args: [
          "worker/main.ts",
          "--agents",
          DEMO_AGENTS_MODULE,
          "--concurrency",
          String(config.concurrency),
        ],
        env: childEnv({
          DATABASE_URL: config.databaseUrl,
          DATABASE_OWNER_URL: "",
          SMTP_URL: config.smtpUrl,
          PAYMENTS_URL: config.paymentsUrl,
          AGENT_LEDGER_LEASE_MS: String(config.leaseMs),
          AGENT_LEDGER_FAULT_POINTS: faultPoint
            ? JSON.stringify({ [faultPoint]: FAULT_PROBABILITY[faultPoint] })
            : "",
          // A second guard besides the watchdog: the worker stops when the harness is gone.
          AGENT_LEDGER_PARENT_PID: String(process.pid),
          REFUND_APPROVAL_THRESHOLD: String(APPROVAL_THRESHOLD_CENTS),
          // The demo's scripted model: a crash test must not spend money on a real one.
          MODEL_BASE_URL: "",
        }),
        watchdog: config.watchdog,
        log: config.log,
        label: `[w${slot}.${generation}${faultPoint ? ` ${faultPoint}` : ""}]`,
        onLine: (line) => {
          const id = readyWorkerId(line);
          if (id !== null && worker.workerId === null) {
            worker.workerId = id;
            worker.readyAt = Date.now();
          }
        },
      }),
      workerId: null,
      readyAt: null,
      killedByHarness: false,
    };
    live.set(slot, worker);
    void worker.child.exited.then((exit) => onExit(worker, exit));
  };

  const onExit = (worker: WorkerProcess, exit: Exit) => {
    if (worker.workerId !== null) diedAt.set(worker.workerId, Date.now());
    if (live.get(worker.slot) === worker) live.delete(worker.slot);
    if (stopping) return;
    if (worker.killedByHarness) {
      // Counted when we sent it.
    } else if (exit.signal === "SIGKILL" && worker.faultPoint) {
      deaths.faultPoints[worker.faultPoint]++;
    } else if (exit.signal === "SIGKILL") {
      deaths.unexplained++;
      config.warn(`worker w${worker.slot}.${worker.generation} was SIGKILLed by someone else`);
    } else {
      deaths.exited++;
      config.warn(
        `worker w${worker.slot}.${worker.generation} exited by itself (${exit.signal ?? `code ${exit.code}`}); last lines:\n  ${worker.child.tail().slice(-8).join("\n  ")}`,
      );
      if (worker.readyAt === null) {
        const n = (earlyExits.get(worker.slot) ?? 0) + 1;
        earlyExits.set(worker.slot, n);
        if (n >= 3) {
          config.fail(
            new Error(`worker slot ${worker.slot} exited before it was ready ${n} times in a row`),
          );
          return;
        }
      }
    }
    if (worker.readyAt !== null) earlyExits.delete(worker.slot);
    spawnWorker(worker.slot);
  };

  for (let slot = 0; slot < config.workers; slot++) spawnWorker(slot);

  return {
    deaths,
    diedAt,
    restarts: () => generations - config.workers,
    /** Workers that printed their ready line and are not being killed. */
    ready: () => [...live.values()].filter((w) => w.readyAt !== null && !w.killedByHarness),
    kill(worker: WorkerProcess) {
      if (worker.killedByHarness || live.get(worker.slot) !== worker) return false;
      worker.killedByHarness = true;
      deaths.harness++;
      worker.child.signal("SIGKILL");
      return true;
    },
    /** SIGTERM: the workers finish or hand back in-flight work, then exit. */
    async stop(graceMs = 15_000) {
      stopping = true;
      const workers = [...live.values()];
      const exits = await Promise.all(workers.map((w) => stopChild(w.child, "SIGTERM", graceMs)));
      exits.forEach((exit, i) => {
        const w = workers[i];
        if (!w || (!exit.forced && exit.code === 0)) return;
        // worker/run-worker.ts installs its SIGTERM handler once startWorker has returned;
        // before that the default action ends the process, which is no news for a clean stop.
        if (exit.signal === "SIGTERM" && w.readyAt === null) return;
        config.warn(
          `worker w${w.slot}.${w.generation} did not stop cleanly on SIGTERM (${exit.forced ? `still running after ${graceMs} ms` : `exit ${exit.signal ?? exit.code}`})`,
        );
      });
    },
    /** Immediately, for an aborted run. */
    async killAll() {
      stopping = true;
      await Promise.all([...live.values()].map((w) => stopChild(w.child, "SIGKILL", 1_000)));
    },
  };
}

export type Fleet = ReturnType<typeof startFleet>;
