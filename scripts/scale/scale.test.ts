// The scale scripts on a tiny load (20k entries): what they load verifies as a ledger, and the
// measure runs every case without an error. No timings are asserted; figures come from
// `npm run scale:measure` on a real load.
import { describe, expect, it } from "vitest";
import { createDb } from "../../db/client";
import { setUpTestDatabase } from "../../db/testing/database";
import { verifyLedger } from "../../lib/server/ledger/verify-ledger";
import { ADMIN_VIEWER, CASES } from "./cases";
import { explainCases } from "./explain";
import { loadScale } from "./load-data";
import { markdownTable, runCases } from "./run-cases";
import { findSamples } from "./samples";

const db = await setUpTestDatabase("scale");

describe("scale load and measure", () => {
  it("loads chains that verify, and every case answers", async () => {
    const loaded = await loadScale(db.ownerPool, { entries: 20_000, tasks: 2_000, batch: 500 });
    expect(loaded.tasks).toBe(2_000);
    // Within a few per cent of what was asked: retries and the system stream round it.
    expect(Math.abs(loaded.entries - 20_000)).toBeLessThan(1_000);
    const counts = await db.pool.query<{ tasks: number; entries: number; dead: number }>(
      `select (select count(*) from tasks)::int as tasks, (select count(*) from ledger_entries)::int as entries,
              (select count(*) from tasks where status = 'dead')::int as dead`,
    );
    expect(counts.rows[0]).toMatchObject({ tasks: 2_000, entries: loaded.entries });
    expect(counts.rows[0]?.dead).toBeGreaterThan(0);

    const report = await verifyLedger(db.pool);
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.entries).toBe(loaded.entries);

    const s = await findSamples(db.pool);
    // The samples exist, so each /why case finds its effect rather than measuring a miss.
    expect(s.recipient).toMatch(/@example\.com$/);
    expect(s.refundId).toMatch(/^re_/);
    const ctx = { pool: db.pool, db: createDb(db.pool), viewer: ADMIN_VIEWER, s };
    const results = await runCases(ctx, CASES, { runs: 1, warmup: 0 });
    expect(results.filter((r) => r.error)).toEqual([]);
    const table = markdownTable(results);
    for (const c of CASES) expect(table).toContain(`| ${c.name} |`);

    // --explain finds the statements a case sends and explains each of them.
    const plans = await explainCases(
      ctx,
      CASES.filter((c) => c.name === "/why by recipient"),
    );
    expect(plans).toContain("### /why by recipient");
    expect(plans).toMatch(/from effects where/);
    expect(plans).toContain("Execution Time");
  });
});
