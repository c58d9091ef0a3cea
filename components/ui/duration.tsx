const UNITS: readonly [string, number][] = [
  ["d", 86_400],
  ["h", 3_600],
  ["m", 60],
  ["s", 1],
];

/** "3 d 4 h", "12 m 5 s": the two largest units are enough to judge how long something waited. */
export function formatDuration(totalSeconds: number): string {
  let rest = Math.max(0, Math.floor(totalSeconds));
  const parts: string[] = [];
  for (const [name, size] of UNITS) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0) parts.push(`${n} ${name}`);
    else if (parts.length > 0) break;
    if (parts.length === 2) break;
  }
  return parts.join(" ") || "0 s";
}

export function Duration({ seconds }: { seconds: number }) {
  return <span className="whitespace-nowrap tabular-nums">{formatDuration(seconds)}</span>;
}
