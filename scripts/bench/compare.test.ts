// The comparison as `npm run bench -- --quick` runs it, at a few hundred jobs: every system must
// have finished every job by the database's own count (a system that dropped or never ran jobs
// would otherwise show up as fast), the one-INSERT handler must have left one row per job, and
// the table must say so. No timing is asserted: the figures are the bench's to report.
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
    // 4 systems × 2 handlers, each once.
    expect(c.runs).toHaveLength(SYSTEMS.length * 2);
    for (const r of c.runs) {
      expect({ system: r.system, handler: r.handler, completed: r.completed }).toEqual({
        system: r.system,
        handler: r.handler,
        completed: JOBS,
      });
      if (r.handler === "insert" || r.system === "ceiling") expect(r.sinkRows).toBe(JOBS);
      if (r.system === "graphile-worker") expect(r.ratio).toBe(1);
    }
    for (const s of c.summary) expect(s.minCompleted).toBe(JOBS);
    const table = renderMarkdown(c, "npm run bench -- --quick");
    expect(table.match(/\| 200\/200 \|/g)).toHaveLength(SYSTEMS.length * 2);
    expect(c.bulkEnqueue?.tasks).toBe(100);
    expect(c.latency?.ours.samples).toBe(5);
    expect(c.dedupe?.samples).toBe(10);
    expect(c.workerRss?.map((r) => r.concurrency)).toEqual([1]);
    expect(c.machine.postgres).toMatch(/^\d+/);
  }, 300_000);
});
