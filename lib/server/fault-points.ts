// Named crash points for the chaos harness. In production nothing is configured and each call
// is one map lookup; the harness's worker processes configure probabilities, and a hit kills
// the process on the spot (SIGKILL), exactly like a machine dying there.
export const FAULT_POINTS = [
  /** The effect's claim committed (no entry yet: its end will carry it); the provider has not been called. */
  "effect.started",
  /** The provider answered; its result is not committed yet. */
  "effect.returned",
  /** A model call is in flight. */
  "model.call",
  /** Between locking a stream head and writing the entries. */
  "ledger.append",
  /** A child task's enqueue (ctx.spawn) committed; the parent's journal does not hold it yet. */
  "spawn.enqueued",
  /** A wait took its event (the wait closed, its step and entries written), not committed yet. */
  "event.taken",
  /** A schedule tick enqueued its due occurrences and moved the schedules on, not committed yet. */
  "schedule.tick",
] as const;
export type FaultPoint = (typeof FAULT_POINTS)[number];

const probabilities = new Map<FaultPoint, number>();

export function configureFaultPoints(config: Partial<Record<FaultPoint, number>>): void {
  probabilities.clear();
  for (const [name, p] of Object.entries(config)) {
    if (p !== undefined && p > 0) probabilities.set(name as FaultPoint, p);
  }
}

export function faultPoint(name: FaultPoint): void {
  const p = probabilities.get(name);
  if (p !== undefined && Math.random() < p) process.kill(process.pid, "SIGKILL");
}
