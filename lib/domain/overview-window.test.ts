import { describe, expect, it } from "vitest";
import {
  bucketOf,
  bucketStarts,
  fillBuckets,
  OVERVIEW_WINDOW_SPEC,
  OVERVIEW_WINDOWS,
  overviewWindow,
  successRate,
} from "./overview-window";

const now = new Date("2026-12-01T14:37:24.500Z");

describe("overviewWindow", () => {
  it("ends after the step that holds now, on a whole step of UTC time", () => {
    expect(overviewWindow("1h", now)).toMatchObject({
      from: new Date("2026-12-01T13:40:00.000Z"),
      to: new Date("2026-12-01T14:40:00.000Z"),
      buckets: 12,
    });
    expect(overviewWindow("24h", now)).toMatchObject({
      from: new Date("2026-11-30T15:00:00.000Z"),
      to: new Date("2026-12-01T15:00:00.000Z"),
    });
    expect(overviewWindow("7d", now)).toMatchObject({
      from: new Date("2026-11-24T18:00:00.000Z"),
      to: new Date("2026-12-01T18:00:00.000Z"),
    });
    expect(overviewWindow("30d", now)).toMatchObject({
      from: new Date("2026-11-02T00:00:00.000Z"),
      to: new Date("2026-12-02T00:00:00.000Z"),
    });
  });

  it("covers its buckets exactly, for every window", () => {
    for (const name of OVERVIEW_WINDOWS) {
      const w = overviewWindow(name, now);
      const spec = OVERVIEW_WINDOW_SPEC[name];
      expect(w.to.getTime() - w.from.getTime()).toBe(spec.stepMs * spec.buckets);
      expect(w.from.getTime() <= now.getTime() && now.getTime() < w.to.getTime()).toBe(true);
      const starts = bucketStarts(w);
      expect(starts).toHaveLength(spec.buckets);
      expect(starts[0]).toEqual(w.from);
      expect(bucketOf(w, now)).toBe(spec.buckets - 1);
    }
  });

  it("a bucket holds its start and not its end", () => {
    const w = overviewWindow("1h", now);
    expect(bucketOf(w, new Date("2026-12-01T13:39:59.999Z"))).toBeNull();
    expect(bucketOf(w, new Date("2026-12-01T13:40:00.000Z"))).toBe(0);
    expect(bucketOf(w, new Date("2026-12-01T13:44:59.999Z"))).toBe(0);
    expect(bucketOf(w, new Date("2026-12-01T13:45:00.000Z"))).toBe(1);
    expect(bucketOf(w, new Date("2026-12-01T14:40:00.000Z"))).toBeNull();
  });
});

describe("fillBuckets", () => {
  it("fills the buckets nobody counted with zeros and adds duplicates", () => {
    const w = overviewWindow("1h", now);
    expect(
      fillBuckets(w, [
        { bucket: 0, count: 2 },
        { bucket: 11, count: 5 },
        { bucket: 11, count: 1 },
      ]),
    ).toEqual([2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6]);
  });

  it("drops buckets outside the window", () => {
    const w = overviewWindow("1h", now);
    const series = fillBuckets(w, [
      { bucket: -1, count: 9 },
      { bucket: 12, count: 9 },
      { bucket: 1.5, count: 9 },
    ]);
    expect(series.every((n) => n === 0)).toBe(true);
  });
});

describe("successRate", () => {
  it("is the share of decided tasks that succeeded, null when none was decided", () => {
    expect(successRate(3, 1)).toBe(0.75);
    expect(successRate(0, 2)).toBe(0);
    expect(successRate(0, 0)).toBeNull();
  });
});
