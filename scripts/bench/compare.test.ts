// The comparison as `npm run bench -- --quick` runs it, at a few hundred jobs: every system must
// have finished every job by the database's own count (a system that dropped or never ran jobs
// would otherwise show up as fast), the one-INSERT handler must have left each job's row exactly
// once, what each system wrote must be plausible (some WAL, some commits: graphile-worker's
// batched completions make fewer than one per job; the INSERT handler's row at least, per job),
// and the table must say so. No timing is asserted: the figures are the bench's to report.
import { describe, expect, inject, it } from "vitest";
import { renderMarkdown, runComparison } from "./compare/index";
import { SYSTEMS } from "./compare/systems";

const cluster = inject("testCluster");
const JOBS = 200;

describe("bench comparison", () => {
  it("runs every system to completion and counts it in the table", async () => {
    const c = await runComparison(cluster, {
      jobs: JOBS,
      concurrency: 8,
      runs: 1,
      extras: {
        bulkTasks: 100,
        latencySamples: 5,
        dedupeSamples: 10,
        rssTasks: 50,
        rssLevels: [1],
      },
    });
    expect(SYSTEMS).toContain("dbos");
    // Every system × 2 handlers, each once.
    expect(c.runs).toHaveLength(SYSTEMS.length * 2);
    for (const r of c.runs) {
      const who = { system: r.system, handler: r.handler };
      expect({ ...who, completed: r.completed }).toEqual({ ...who, completed: JOBS });
      if (r.handler === "insert" || r.system === "ceiling") {
        expect({ ...who, rows: r.sinkRows, keys: r.sinkKeys }).toEqual({
          ...who,
          rows: JOBS,
          keys: JOBS,
        });
      }
      expect({ ...who, wal: r.writes.walBytes > 0, tx: r.writes.transactions > 0 }).toEqual({
        ...who,
        wal: true,
        tx: true,
      });
      if (r.handler === "insert")
        expect({ ...who, ins: r.writes.inserted >= 1 }).toEqual({ ...who, ins: true });
      if (r.system === "graphile-worker") expect(r.ratio).toBe(1);
      if (r.system === "dbos") expect(r.ratioToDbos).toBe(1);
    }
    for (const s of c.summary) {
      expect(s.minCompleted).toBe(JOBS);
      expect(s.medianWrites.walBytes).toBeGreaterThan(0);
    }
    const table = renderMarkdown(c, "npm run bench -- --quick");
    expect(table.match(/\| 200\/200 \|/g)).toHaveLength(SYSTEMS.length * 2);
    expect(table).toContain("| × DBOS |");
    expect(c.bulkEnqueue?.tasks).toBe(100);
    expect(c.latency?.ours.samples).toBe(5);
    expect(c.dedupe?.samples).toBe(10);
    expect(c.workerRss?.map((r) => r.concurrency)).toEqual([1]);
    expect(c.machine.postgres).toMatch(/^\d+/);
  }, 300_000);
});
