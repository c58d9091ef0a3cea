import { type DurationUnits, twoLargestUnits } from "../../lib/domain/duration-units";

const UNITS: DurationUnits = [
  ["d", 86_400],
  ["h", 3_600],
  ["m", 60],
  ["s", 1],
];

/** "3 d 4 h", "12 m 5 s": the two largest units are enough to judge how long something waited. */
export function formatDuration(totalSeconds: number): string {
  return twoLargestUnits(totalSeconds, UNITS) || "0 s";
}

export function Duration({ seconds }: { seconds: number }) {
  return <span className="whitespace-nowrap tabular-nums">{formatDuration(seconds)}</span>;
}
