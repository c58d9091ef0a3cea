// Fault decisions for the demo receivers. A seed makes a run repeatable (a failing crash
// scenario can be replayed exactly); without one the faults come from Math.random.

export type Dice = () => number;

/** mulberry32: tiny, fast and good enough to spread faults; not for anything secret. */
export function createDice(seed?: number): Dice {
  if (seed === undefined) return Math.random;
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * One roll decides at most one fault: the rates are stacked on [0, 1), so each fault happens
 * at its own rate and a seeded run consumes exactly one number per decision, whatever happens.
 */
export function pickFault<K extends string>(
  dice: Dice,
  rates: ReadonlyArray<readonly [K, number | undefined]>,
): K | null {
  const roll = dice();
  let edge = 0;
  for (const [kind, rate] of rates) {
    edge += rate ?? 0;
    if (roll < edge) return kind;
  }
  return null;
}
