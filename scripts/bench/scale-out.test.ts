// The scale-out bench at a couple of hundred tasks: with one and with two worker processes on one
// database, every task succeeded once, on its first attempt, with one task.succeeded entry and
// one sink row, and the transactions it took were counted; the peer (graphile-worker) beside it
// ran each job once. No timing is asserted: the figures are the bench's.
import { describe, expect, inject, it } from "vitest";
import { renderScaleOut, runScaleOut, unsoundRuns } from "./scale-out";

const cluster = inject("testCluster");
const TASKS = 200;

describe("scale-out bench", () => {
  it("runs every task exactly once across one and two worker processes", async () => {
    const result = await runScaleOut(cluster, {
      systems: ["agent-ledger", "graphile-worker"],
      tasks: TASKS,
      totals: [4],
      processes: [1, 2],
      runs: 1,
    });
    expect(result.runs.map((r) => [r.system, r.processes])).toEqual([
      ["agent-ledger", 1],
      ["graphile-worker", 1],
      ["agent-ledger", 2],
      ["graphile-worker", 2],
    ]);
    // The peer (a bare queue, beside ours for what more processes cost on the box): every job
    // completed, each run once by one of its processes, one sink row each.
    for (const r of result.runs.filter((r) => r.system === "graphile-worker")) {
      expect({
        succeeded: r.succeeded,
        attempts: r.attempts,
        entries: r.succeededEntries,
        sinkRows: r.sinkRows,
      }).toEqual({ succeeded: TASKS, attempts: TASKS, entries: null, sinkRows: TASKS });
      expect(r.attemptsByProcess).toHaveLength(r.processes);
    }
    for (const r of result.runs.filter((r) => r.system === "agent-ledger")) {
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
    // A run that ran a job twice is unsound, whoever ran it.
    const peer = result.runs.find((r) => r.system === "graphile-worker");
    if (!peer) throw new Error("no peer run");
    expect(unsoundRuns({ ...result, runs: [{ ...peer, attempts: TASKS + 1 }] })).toHaveLength(1);
    // Two systems at two levels: the heading, a blank line, the table's two header rows, four rows.
    expect(renderScaleOut(result, "npm run bench -- --section scale-out").split("\n")).toHaveLength(
      8,
    );
  }, 180_000);
});
