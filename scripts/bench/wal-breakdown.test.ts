// The WAL breakdown at a few hundred jobs: it must find the records the job writes in the
// relations that hold them (a breakdown that attributed nothing, or another database's records,
// would show up here), and the ledger's share must be its three entries per job.
import { describe, expect, inject, it } from "vitest";
import { walBreakdown } from "./wal-breakdown";

const cluster = inject("testCluster");
const JOBS = 200;

describe("bench WAL breakdown", () => {
  it("attributes a one-effect job's WAL to the relations it writes", async () => {
    const w = await walBreakdown(cluster, JOBS, 8);
    const rel = (name: string) => w.byRelation.find((r) => r.relation === name);
    // task.enqueued, effect.succeeded (carrying the attempt's start and the effect's claim),
    // task.succeeded: neither claim writes an entry of its own.
    expect(rel("ledger_entries")?.recordsPerJob).toBeCloseTo(3, 0);
    // The tool's own row, once per job.
    expect(rel("bench_sink")?.recordsPerJob).toBeCloseTo(1, 0);
    for (const name of ["tasks", "effects", "ledger_streams", "ledger_entries_stream_seq_key"]) {
      expect(rel(name)?.bytesPerJob, name).toBeGreaterThan(0);
    }
    // The tool step is kept on its effect (migration 0067): steps writes nothing.
    expect(rel("steps")?.bytesPerJob ?? 0).toBe(0);
    // Never more than was written over the run (the cluster's WAL position moved at least that).
    expect(w.walBytesPerJob).toBeGreaterThan(1_000);
    expect(w.walBytesPerJob).toBeLessThanOrEqual(w.lsnBytesPerJob);
    expect(w.byBoth[0]?.bytesPerJob).toBeGreaterThan(0);
  });
});
