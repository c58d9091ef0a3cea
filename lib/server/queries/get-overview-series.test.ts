// The overview's per-interval series against real PostgreSQL: entries staged at known times
// land in the buckets the window says, kinds outside the series and times outside the window
// count nowhere.
import pg from "pg";
import { describe, expect, it } from "vitest";
import { withTransaction } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testViewer } from "../../auth/testing";
import { OVERVIEW_WINDOWS, overviewWindow } from "../../domain/overview-window";
import { getOverview } from "./get-overview";
import {
  bucketsFromEntries,
  bucketsFromHourlyCounts,
  readOverviewSeries,
  readsHourlyCounts,
  SERIES_KINDS,
} from "./get-overview-series";

const t = await setUpTestDatabase("overview_series");
const hex = (c: string) => c.repeat(64);

let seq = 0;
/** Entries at explicit times (appendLedger stamps the clock; these need a fixed one). */
async function stage(entries: { kind: string; at: string }[]) {
  await t.pool.query(
    "insert into ledger_streams (stream, head_seq, head_hash) values ('series', 0, $1) on conflict do nothing",
    [hex("0")],
  );
  for (const e of entries) {
    seq += 1;
    await t.pool.query(
      `insert into ledger_entries (stream, seq, at, kind, actor, data, hash, month)
       values ('series', $1, $2, $3, 'test', '{}', $4, '1970-01-01')`,
      [seq, e.at, e.kind, hex("a")],
    );
  }
}

// 13:40 to 14:40 in 5-minute buckets.
const w = overviewWindow("1h", new Date("2025-06-01T14:37:00Z"));

describe("readOverviewSeries", () => {
  it("counts each kind in the bucket its time falls in", async () => {
    await stage([
      { kind: "task.succeeded", at: "2025-06-01T13:40:00.000Z" }, // bucket 0, its first instant
      { kind: "task.succeeded", at: "2025-06-01T13:44:59.999Z" }, // still bucket 0
      { kind: "task.succeeded", at: "2025-06-01T13:45:00.000Z" }, // bucket 1
      { kind: "task.dead_lettered", at: "2025-06-01T13:46:00.000Z" },
      { kind: "attempt.failed", at: "2025-06-01T14:00:00.000Z" }, // bucket 4
      { kind: "worker.lost", at: "2025-06-01T14:01:00.000Z" }, // a failed attempt too
      { kind: "effect.deduplicated", at: "2025-06-01T14:39:59.999Z" }, // the last bucket
      // Outside the window or not a series kind: counted nowhere.
      { kind: "task.succeeded", at: "2025-06-01T13:39:59.999Z" },
      { kind: "task.succeeded", at: "2025-06-01T14:40:00.000Z" },
      { kind: "attempt.started", at: "2025-06-01T14:00:00.000Z" },
    ]);
    const s = await withTransaction(t.pool, (client) => readOverviewSeries(client, w));
    const zeros = () => new Array<number>(12).fill(0);
    const at = (pairs: [number, number][]) => {
      const a = zeros();
      for (const [i, n] of pairs) a[i] = n;
      return a;
    };
    expect(s.counts.succeeded).toEqual(
      at([
        [0, 2],
        [1, 1],
      ]),
    );
    expect(s.counts.deadLettered).toEqual(at([[1, 1]]));
    expect(s.counts.failed).toEqual(at([[4, 2]]));
    expect(s.counts.deduplicated).toEqual(at([[11, 1]]));
    expect(s.totals).toEqual({ succeeded: 3, failed: 2, deadLettered: 1, deduplicated: 1 });
    expect(s.successRate[0]).toBe(1);
    expect(s.successRate[1]).toBe(0.5);
    expect(s.successRate[2]).toBeNull();
    expect(s.successRateTotal).toBe(0.75);
    expect(s.bucketStarts[0]).toBe("2025-06-01T13:40:00.000Z");
    expect(s.bucketStarts[11]).toBe("2025-06-01T14:35:00.000Z");
    expect(s.to).toBe("2025-06-01T14:40:00.000Z");
  });

  it("a longer window puts the same entries in its own wider buckets", async () => {
    const day = overviewWindow("24h", new Date("2025-06-01T14:37:00Z")); // 15:00 the day before
    const s = await withTransaction(t.pool, (client) => readOverviewSeries(client, day));
    // The bucket at 13:00 (index 22) now also holds 13:39:59.999, outside the hour chart; the
    // one at 14:00 (23) holds 14:40, which was past its end.
    expect(s.counts.succeeded.slice(22)).toEqual([4, 1]);
    expect(s.counts.succeeded.slice(0, 22).every((n) => n === 0)).toBe(true);
    expect(s.counts.failed[23]).toBe(2);
  });
});

describe("getOverview series", () => {
  it("reads the chosen window ending at the database's now", async () => {
    const now = new Date();
    await stage([{ kind: "task.succeeded", at: new Date(now.getTime() - 60_000).toISOString() }]);
    const o = await getOverview(t.pool, testViewer("ops"), { window: "1h" });
    expect(o.series.window).toBe("1h");
    expect(o.series.counts.succeeded).toHaveLength(12);
    expect(o.series.totals.succeeded).toBe(1);
    const week = await getOverview(t.pool, testViewer("ops"), { window: "7d" });
    expect(week.series.counts.succeeded).toHaveLength(28);
    expect(week.series.totals.succeeded).toBe(1);
  });
});

describe("hourly counters", () => {
  const sorted = (rows: { kind: string; bucket: number; n: number }[]) =>
    [...rows].sort((a, b) => a.kind.localeCompare(b.kind) || a.bucket - b.bucket);

  it("give every hour-wide window the same bars as reading the entries, folded or not", async () => {
    const now = new Date();
    const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
    // Hours long folded into backend 0, the hour before (not yet folded), and this hour from
    // two backends at once.
    await stage([
      { kind: "task.succeeded", at: ago(29 * 86_400_000) },
      { kind: "task.dead_lettered", at: ago(6 * 86_400_000 + 5_000) },
      { kind: "attempt.failed", at: ago(26 * 3_600_000) },
      { kind: "task.succeeded", at: ago(3_600_000) },
    ]);
    const other = new pg.Client({ connectionString: t.appUrl });
    await other.connect();
    try {
      await other.query("begin");
      seq += 1;
      await other.query(
        `insert into ledger_entries (stream, seq, at, kind, actor, data, hash, month)
         values ('series', $1, now(), 'task.succeeded', 'test', '{}', $2, '1970-01-01')`,
        [seq, hex("a")],
      );
      // Still open: its counter row is its own, so this append does not wait for it (if it
      // did, the test would hang here, since the commit comes after).
      await stage([{ kind: "task.succeeded", at: ago(1_000) }]);
      await other.query("commit");
    } finally {
      await other.end();
    }
    const { rows: backends } = await t.pool.query<{ n: number }>(
      "select count(distinct backend)::int as n from ledger_hourly_counts where hour >= date_bin('1 hour', now(), timestamptz '2000-01-01 00:00:00+00')",
    );
    expect(backends[0]?.n).toBeGreaterThanOrEqual(2);
    const { rows: unfolded } = await t.pool.query(
      "select 1 from ledger_hourly_counts where backend <> 0 and hour < now() - interval '3 hours'",
    );
    expect(unfolded).toEqual([]);

    const kinds = Object.values(SERIES_KINDS).flat();
    for (const name of OVERVIEW_WINDOWS) {
      const w = overviewWindow(name, now);
      if (!readsHourlyCounts(w)) continue;
      const fromEntries = await bucketsFromEntries(t.pool, w, kinds);
      expect(fromEntries.length).toBeGreaterThan(0);
      expect(sorted(await bucketsFromHourlyCounts(t.pool, w, kinds))).toEqual(sorted(fromEntries));
    }
    expect(readsHourlyCounts(overviewWindow("1h", now))).toBe(false);
    expect(readsHourlyCounts(overviewWindow("30d", now))).toBe(true);
  });
});
