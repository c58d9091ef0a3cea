// The overview's chart windows: how far back a chart looks and how wide its bars are. Buckets
// are aligned to whole steps of UTC time (an hour chart starts on a 5-minute mark, a 30-day
// chart at midnight UTC), so two people, or two refreshes a minute apart, see the same bars.

export const OVERVIEW_WINDOWS = ["1h", "24h", "7d", "30d"] as const;
export type OverviewWindowName = (typeof OVERVIEW_WINDOWS)[number];
export const DEFAULT_OVERVIEW_WINDOW: OverviewWindowName = "24h";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const OVERVIEW_WINDOW_SPEC: Record<
  OverviewWindowName,
  { label: string; stepMs: number; buckets: number; stepLabel: string }
> = {
  "1h": { label: "Last hour", stepMs: 5 * MINUTE, buckets: 12, stepLabel: "5 minutes" },
  "24h": { label: "Last 24 hours", stepMs: HOUR, buckets: 24, stepLabel: "hour" },
  "7d": { label: "Last 7 days", stepMs: 6 * HOUR, buckets: 28, stepLabel: "6 hours" },
  "30d": { label: "Last 30 days", stepMs: DAY, buckets: 30, stepLabel: "day" },
};

export type OverviewWindow = {
  name: OverviewWindowName;
  stepMs: number;
  buckets: number;
  /** Start of the first bucket (inclusive). */
  from: Date;
  /** End of the last bucket (exclusive); the last bucket holds `now` and is still filling. */
  to: Date;
};

export function overviewWindow(name: OverviewWindowName, now: Date): OverviewWindow {
  const { stepMs, buckets } = OVERVIEW_WINDOW_SPEC[name];
  const to = (Math.floor(now.getTime() / stepMs) + 1) * stepMs;
  return { name, stepMs, buckets, from: new Date(to - buckets * stepMs), to: new Date(to) };
}

/** The bucket an instant falls in, or null outside the window. */
export function bucketOf(window: OverviewWindow, at: Date): number | null {
  const offset = at.getTime() - window.from.getTime();
  if (offset < 0 || at.getTime() >= window.to.getTime()) return null;
  return Math.floor(offset / window.stepMs);
}

/** Start of every bucket, oldest first. */
export function bucketStarts(window: OverviewWindow): Date[] {
  return Array.from(
    { length: window.buckets },
    (_, i) => new Date(window.from.getTime() + i * window.stepMs),
  );
}

/** Counts per bucket index (as the database grouped them) → one count per bucket, zeros filled. */
export function fillBuckets(
  window: OverviewWindow,
  rows: readonly { bucket: number; count: number }[],
): number[] {
  const series = new Array<number>(window.buckets).fill(0);
  for (const row of rows) {
    if (Number.isInteger(row.bucket) && row.bucket >= 0 && row.bucket < window.buckets) {
      series[row.bucket] = (series[row.bucket] ?? 0) + row.count;
    }
  }
  return series;
}

/**
 * Of the tasks that reached an outcome (succeeded or dead-lettered), the share that succeeded;
 * null when none did, which a chart shows as a gap rather than as 0 %.
 */
export function successRate(succeeded: number, deadLettered: number): number | null {
  const decided = succeeded + deadLettered;
  return decided === 0 ? null : succeeded / decided;
}
