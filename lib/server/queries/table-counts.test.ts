// Exact counts for small tables; for large ones (the planner's statistics past
// EXACT_COUNT_BELOW) estimates flagged approximate, except what a person acts on.
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../../db/testing/database";
import { countEffects, countLedger, countTasks, EXACT_COUNT_BELOW } from "./table-counts";

const t = await setUpTestDatabase("table_counts");
const hex = (c: string) => c.repeat(64);

async function stageTasks() {
  // 90 succeeded, 6 queued, 4 dead (3 budget, 1 timeout).
  await t.pool.query(
    `insert into tasks (agent, input, status, dead_reason, created_by)
     select 'a', '{}', s.status, s.reason, 't'
       from generate_series(1, 100) i,
            lateral (select case when i <= 90 then 'succeeded' when i <= 96 then 'queued' else 'dead' end as status,
                            case when i between 97 and 99 then 'budget' when i = 100 then 'timeout' end as reason) s`,
  );
  const { rows } = await t.pool.query<{ id: string }>("select id from tasks limit 1");
  await t.pool.query(
    `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status, lease_owner, lease_expires_at)
     values ($2, $1, 1, 'email', '{}', '{}', $2, 'started', 'w', now() - interval '1 minute'),
            ($3, $1, 2, 'email', '{}', '{}', $3, 'succeeded', null, null),
            ($4, $1, 3, 'email', '{}', '{}', $4, 'succeeded', null, null)`,
    [rows[0]?.id, hex("a"), hex("b"), hex("c")],
  );
}

describe("table counts", () => {
  it("counts small tables exactly", async () => {
    await stageTasks();
    const tasks = await countTasks(t.pool);
    expect(tasks.byStatus.succeeded).toEqual({ count: 90, approximate: false });
    expect(tasks.byStatus.queued).toEqual({ count: 6, approximate: false });
    expect(tasks.byStatus.dead).toEqual({ count: 4, approximate: false });
    expect(tasks.byStatus.running).toEqual({ count: 0, approximate: false });
    expect(tasks.deadByReason).toMatchObject({ budget: 3, timeout: 1, exhausted: 0 });
    expect(tasks.total).toEqual({ count: 100, approximate: false });
    const effects = await countEffects(t.pool);
    expect(effects.byStatus.succeeded).toEqual({ count: 2, approximate: false });
    expect(effects.outcomeUnknown).toBe(1);
  });

  it("estimates what the statistics put past the limit, and keeps dead letters and work in progress exact", async () => {
    await t.asSuperuserRolledBack(async (client) => {
      await client.query("analyze tasks");
      await client.query("analyze effects");
      // The statistics of a table 1,000 times this size, with the same mix.
      const big = EXACT_COUNT_BELOW * 10;
      await client.query(
        "update pg_class set reltuples = $1 where oid in ('tasks'::regclass, 'effects'::regclass)",
        [big],
      );
      const tasks = await countTasks(client);
      expect(tasks.byStatus.succeeded).toEqual({ count: big * 0.9, approximate: true });
      // 6 % of a million is estimated below the limit: the queue is counted, exactly.
      expect(tasks.byStatus.queued).toEqual({ count: 6, approximate: false });
      // Not in the statistics: estimated as none, and counted exactly since that is cheap.
      expect(tasks.byStatus.running).toEqual({ count: 0, approximate: false });
      expect(tasks.byStatus.dead).toEqual({ count: 4, approximate: false });
      expect(tasks.deadByReason).toMatchObject({ budget: 3, timeout: 1 });
      expect(tasks.total.approximate).toBe(true);

      const effects = await countEffects(client);
      expect(effects.byStatus.started).toEqual({ count: 1, approximate: false });
      expect(effects.byStatus.succeeded.approximate).toBe(true);
      expect(effects.byStatus.succeeded.count).toBe(Math.round(big * (2 / 3)));
      expect(effects.outcomeUnknown).toBe(1);
    });
  });

  it("counts a large ledger by its newest id", async () => {
    await t.pool.query(
      "insert into ledger_streams (stream, head_seq, head_hash) values ('c', 0, $1)",
      [hex("0")],
    );
    for (const seq of [1, 2, 3]) {
      await t.pool.query(
        `insert into ledger_entries (stream, seq, at, kind, actor, data, prev_hash, hash)
         values ('c', $1, now(), 'note.added', 't', '{}', $2, $2)`,
        [seq, hex("a")],
      );
    }
    const small = await countLedger(t.pool);
    expect(small.entries).toEqual({ count: 3, approximate: false });
    expect(small.streams).toEqual({ count: 1, approximate: false });
    const { rows } = await t.pool.query<{ id: number; at: Date }>(
      "select id, at from ledger_entries order by id desc limit 1",
    );
    expect(small.latestAt).toEqual(rows[0]?.at);
    await t.asSuperuserRolledBack(async (client) => {
      await client.query(
        "update pg_class set reltuples = $1 where oid in ('ledger_entries'::regclass, 'ledger_streams'::regclass)",
        [EXACT_COUNT_BELOW * 5],
      );
      const large = await countLedger(client);
      expect(large.entries).toEqual({ count: rows[0]?.id, approximate: true });
      expect(large.streams).toEqual({ count: EXACT_COUNT_BELOW * 5, approximate: true });
    });
  });
});
