// The scale scripts on a tiny load (20k entries): what they load verifies as a ledger, and the
// measure runs every case without an error. No timings are asserted; figures come from
// `npm run scale:measure` on a real load.
import { describe, expect, it } from "vitest";
import { createDb } from "../../db/client";
import { setUpTestDatabase } from "../../db/testing/database";
import { entryHash, GENESIS_HASH } from "../../lib/domain/hash";
import { canonicalJson } from "../../lib/domain/json";
import { verifyLedger } from "../../lib/server/ledger/verify-ledger";
import { canonical, fastEntryHash } from "./canonical";
import { ADMIN_VIEWER, CASES } from "./cases";
import { explainCases } from "./explain";
import { loadScale } from "./load-data";
import { markdownTable, runCases, summarize } from "./run-cases";
import { findSamples } from "./samples";

const db = await setUpTestDatabase("scale");

describe("scale load and measure", () => {
  it("hashes entries as the ledger does", () => {
    const args = { to: "a@example.com", n: 1.5, list: [null, true, "ü\u2028"] };
    const e = {
      stream: "task:x",
      seq: 3,
      at: "2026-01-01T00:00:00.000Z",
      kind: "effect.started",
      actor: "worker:w",
      taskId: null,
      key: "k",
      data: { args, zeta: { args }, alpha: 0 },
    };
    expect(canonical(e.data)).toBe(canonicalJson(e.data));
    expect(fastEntryHash(GENESIS_HASH, e, canonical(e.data))).toBe(entryHash(GENESIS_HASH, e));
  });

  it("loads chains that verify, and every case answers", async () => {
    const catalog = () =>
      db.ownerPool.query<{ def: string }>(
        `select indexdef as def from pg_indexes where schemaname = 'public'
         union all
         select conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) || ' ' || convalidated
         from pg_constraint where connamespace = 'public'::regnamespace
         union all
         select relname || ' ' || coalesce(reloptions::text, '') from pg_class
         where relnamespace = 'public'::regnamespace and relkind = 'r'
         order by 1`,
      );
    // The ledger partitions of the months the load spreads over, made first as the loader
    // would (it makes them before it reads what to drop), so the catalogs compare like for like.
    await db.ownerPool.query(
      "select ledger_ensure_partitions((now() + interval '62 days')::date, (now() - interval '90 days')::date)",
    );
    const before = (await catalog()).rows.map((r) => r.def);
    const loaded = await loadScale(db.ownerPool, { entries: 20_000, tasks: 2_000, batch: 500 });
    expect(loaded.tasks).toBe(2_000);
    // Every index and key the migrations made is back, validated, as it was.
    expect((await catalog()).rows.map((r) => r.def)).toEqual(before);
    expect(before.some((d) => d.includes("FOREIGN KEY"))).toBe(true);
    // Within a few per cent of what was asked: retries and the system stream round it.
    expect(Math.abs(loaded.entries - 20_000)).toBeLessThan(1_000);
    const counts = await db.pool.query<{ tasks: number; entries: number; dead: number }>(
      `select (select count(*) from tasks)::int as tasks, (select count(*) from ledger_entries)::int as entries,
              (select count(*) from tasks where status = 'dead')::int as dead`,
    );
    expect(counts.rows[0]).toMatchObject({ tasks: 2_000, entries: loaded.entries });
    // The spend counters are recounted from what was loaded, and the trigger is back on.
    const spend = await db.pool.query<{
      calls: number;
      counted: number;
      cost: number;
      tasks: number;
      trigger: string;
      wrongDeadTool: number;
      deadTools: number;
    }>(
      `select (select count(*) from ledger_entries where kind = 'model.called')::int as calls,
              (select sum(calls) from spend_daily)::int as counted,
              (select sum(cost) from spend_daily) as cost,
              (select sum(cost) from task_spend) - (select sum(cost) from tasks) as tasks,
              (select string_agg(distinct tgenabled::text, '') from pg_trigger
               where tgname in ('task_spend_insert', 'tasks_keep_dead_tool', 'steps_refresh_dead_tool')) as trigger,
              (select count(*) from tasks where status = 'dead'
               and dead_tool is distinct from task_last_tool(id))::int as "wrongDeadTool",
              (select count(*) from tasks where dead_tool is not null)::int as "deadTools"`,
    );
    const row = spend.rows[0];
    expect(row?.calls).toBeGreaterThan(2_000);
    expect(row?.counted).toBe(row?.calls);
    expect(row?.cost).toBeCloseTo((row?.calls ?? 0) * 0.0012, 6);
    expect(row?.tasks).toBeCloseTo(0, 6);
    expect(row?.trigger).toBe("O");
    // dead_tool written by the loader as the trigger it keeps off would have set it.
    expect(row?.wrongDeadTool).toBe(0);
    expect(row?.deadTools).toBeGreaterThan(0);
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
    const summary = summarize(results);
    expect(summary.cases).toBe(CASES.length);
    expect(summary.underTarget + summary.over.length).toBe(CASES.length);
    // Case names are the keys of the benchmark files: one name, one case.
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);

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
