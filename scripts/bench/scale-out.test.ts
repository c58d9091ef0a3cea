// The scale-out bench at a couple of hundred tasks: with one and with two worker processes on one
// database, every task succeeded once, on its first attempt, with one task.succeeded entry and
// one sink row, and the transactions it took were counted. No timing is asserted: the figures
// are the bench's.
import { describe, expect, inject, it } from "vitest";
import { renderScaleOut, runScaleOut, unsoundRuns } from "./scale-out";

const cluster = inject("testCluster");
const TASKS = 200;

describe("scale-out bench", () => {
  it("runs every task exactly once across one and two worker processes", async () => {
    const result = await runScaleOut(cluster, {
      tasks: TASKS,
      totals: [4],
      processes: [1, 2],
      runs: 1,
    });
    expect(result.runs.map((r) => r.processes)).toEqual([1, 2]);
    for (const r of result.runs) {
      expect({
        processes: r.processes,
        succeeded: r.succeeded,
        attempts: r.attempts,
        succeededEntries: r.succeededEntries,
        sinkRows: r.sinkRows,
        attemptsRun: r.attemptsByProcess.reduce((a, b) => a + b, 0),
      }).toEqual({
        processes: r.processes,
        succeeded: TASKS,
        attempts: TASKS,
        succeededEntries: TASKS,
        sinkRows: TASKS,
        attemptsRun: TASKS,
      });
      expect(r.attemptsByProcess).toHaveLength(r.processes);
      // Whatever the batching, each task's sink row is a transaction of its own.
      expect(r.xactPerJob).toBeGreaterThanOrEqual(1);
    }
    // Two processes at a total of 4: two attempts each in flight. How the tasks split between
    // them depends on which started first, so it is reported, not asserted.
    expect(result.runs.find((r) => r.processes === 2)?.concurrencyEach).toBe(2);
    expect(unsoundRuns(result)).toEqual([]);
    expect(renderScaleOut(result, "npm run bench -- --section scale-out").split("\n")).toHaveLength(
      6,
    );
  }, 180_000);
});
