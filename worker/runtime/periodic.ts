// A pass every `intervalMs`, for the loops a process runs beside its worker (alert evaluation,
// ledger verify): the first pass at once, passes never overlap within the process, the timer
// does not keep the process alive, and stop waits for the pass under way. A pass handles its
// own errors: the loop only schedules.
export type Periodic = { stop: () => Promise<void>; runOnce: () => Promise<void> };

export function startPeriodic(intervalMs: number, pass: () => Promise<void>): Periodic {
  let current: Promise<void> = Promise.resolve();
  let stopped = false;
  const runOnce = () => {
    current = current.then(pass);
    return current;
  };
  const timer = setInterval(() => {
    if (!stopped) void runOnce();
  }, intervalMs);
  timer.unref();
  void runOnce();
  return {
    runOnce,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await current;
    },
  };
}
