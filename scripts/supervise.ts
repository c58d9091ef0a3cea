// How `npm start` keeps its children up: a child that exits on its own is started again after
// a backoff that doubles with each quick failure (capped), and resets once the child has run
// healthy for a while, so one crash a day restarts at once and a crash loop does not spin.
import type { ChildProcess } from "node:child_process";
import type { Logger } from "../lib/log";

export type RestartPolicy = {
  initialMs: number;
  maxMs: number;
  /** A child that ran at least this long counts as healthy: its next crash starts the backoff over. */
  healthyAfterMs: number;
};

export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  initialMs: 500,
  maxMs: 30_000,
  healthyAfterMs: 60_000,
};

/**
 * The delay before the next start, given how many quick failures came before this exit and how
 * long the child ran. Returns the delay and the failure count to carry to the next exit.
 */
export function nextRestart(
  failuresBefore: number,
  ranForMs: number,
  policy: RestartPolicy,
): { delayMs: number; failures: number } {
  const failures = ranForMs >= policy.healthyAfterMs ? 0 : failuresBefore;
  const delayMs = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(failures, 30));
  return { delayMs, failures: failures + 1 };
}

export type Supervised = {
  /** The child running now, if any (none while waiting to restart). */
  current: () => ChildProcess | undefined;
  /** Stops restarting; the running child, if any, is left for the caller to stop. */
  release: () => void;
};

/**
 * Starts `spawnChild` and starts it again whenever it exits while `stopping()` is false. A child
 * that exits because the whole stack is stopping (Ctrl-C reaches the process group at once) is
 * not a crash: the exit is judged after `settleMs`, once our own signal handler has run.
 */
export function supervise(opts: {
  name: string;
  spawnChild: () => ChildProcess;
  stopping: () => boolean;
  log: Logger;
  policy?: RestartPolicy;
  /** After every start, with the new child (to record its pid). */
  onStart?: (child: ChildProcess) => void;
  /** After every exit, before any restart. */
  onExit?: (child: ChildProcess) => void;
  settleMs?: number;
}): Supervised {
  const policy = opts.policy ?? DEFAULT_RESTART_POLICY;
  let child: ChildProcess | undefined;
  let failures = 0;
  let released = false;
  let timer: NodeJS.Timeout | undefined;

  const start = () => {
    timer = undefined;
    if (released || opts.stopping()) return;
    const startedAt = Date.now();
    const c = opts.spawnChild();
    child = c;
    opts.onStart?.(c);
    let gone = false;
    const onGone = (code: number | null, signal: NodeJS.Signals | null) => {
      if (gone) return;
      gone = true;
      if (child === c) child = undefined;
      opts.onExit?.(c);
      setTimeout(() => {
        if (released || opts.stopping()) return;
        const next = nextRestart(failures, Date.now() - startedAt, policy);
        failures = next.failures;
        const exit = signal ?? `code ${code}`;
        opts.log.warn(
          {
            child: opts.name,
            exit,
            ranForMs: Date.now() - startedAt,
            restartInMs: next.delayMs,
            failures,
          },
          `the ${opts.name} exited (${exit}); restarting it in ${next.delayMs} ms`,
        );
        timer = setTimeout(start, next.delayMs);
      }, opts.settleMs ?? 300);
    };
    c.once("exit", onGone);
    c.once("error", (err) => {
      opts.log.error({ child: opts.name, err: { message: err.message } }, "could not start");
      // A child that never started emits no exit event.
      if (c.pid === undefined) onGone(null, null);
    });
  };
  start();

  return {
    current: () => child,
    release: () => {
      released = true;
      if (timer) clearTimeout(timer);
    },
  };
}
