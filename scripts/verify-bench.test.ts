// The verify bench on a tiny load: both passes run, verify the loaded ledger, and the one from
// the checkpoint reads less than the full one. No timings are asserted.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";

describe("scripts/verify-bench.ts", () => {
  it("times a full pass and a pass from the checkpoint over what it loaded", () => {
    const r = spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        path.join(import.meta.dirname, "verify-bench.ts"),
        "--entries",
        "3000",
        "--tasks",
        "300",
        "--after",
        "40",
      ],
      {
        encoding: "utf8",
        env: { ...process.env, TEST_DATABASE_URL: inject("testCluster").superUrl },
        timeout: 120_000,
      },
    );
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.results.start).toMatchObject({ mode: "full", ok: true, entries: out.entries });
    expect(out.results.checkpoint).toMatchObject({ mode: "checkpoint", ok: true });
    // One head per checkpointed stream (all but the two new streams of 10), the checkpoint
    // itself and its one heads chunk (300 streams fit in one), and the 40 entries appended
    // after it.
    const { entries, streams } = out.results.checkpoint;
    expect(entries).toBe(streams - 2 + 2 + 40);
    expect(entries).toBeLessThan(out.results.start.entries);
  }, 180_000);
});
