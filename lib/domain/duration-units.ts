// A duration as its two largest units ("3 d 4 h", "12 m 5 s"): enough to judge how long
// something took or waited. Each screen names its units; the walk is this one. Pure.

/** Unit names and their sizes in seconds, largest first. */
export type DurationUnits = readonly (readonly [name: string, seconds: number])[];

/**
 * Whole `totalSeconds` (at least 0) as its largest unit and the next one when that is not zero
 * ("3 d 4 h", "3 d", "12 m 5 s"); "" for less than the smallest unit.
 */
export function twoLargestUnits(totalSeconds: number, units: DurationUnits): string {
  let rest = Math.max(0, Math.floor(totalSeconds));
  const parts: string[] = [];
  for (const [name, size] of units) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0) parts.push(`${n} ${name}`);
    else if (parts.length > 0) break;
    if (parts.length === 2) break;
  }
  return parts.join(" ");
}
