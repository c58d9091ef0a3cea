// Tasks and effects per status and ledger entries are counters kept by the writes (migrations
// 0022, 0031): exact however the rows got there; only a large ledger's streams are estimated.
import pg from "pg";
import { describe, expect, it } from "vitest";
import { writeFromGoneBackend, writeFromNewBackend } from "../../../db/testing/backends";
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

  it("keeps the counts exact through updates, deletes, rollbacks and concurrent writers", async () => {
    const actual = async () => {
      const { rows } = await t.pool.query<{ status: string; n: number }>(
        "select status, count(*)::int as n from tasks group by status",
      );
      return Object.fromEntries(rows.map((r) => [r.status, r.n]));
    };
    const counted = async () => {
      const c = await countTasks(t.pool);
      return Object.fromEntries(
        Object.entries(c.byStatus)
          .filter(([, v]) => v.count !== 0)
          .map(([k, v]) => [k, v.count]),
      );
    };
    // Two open transactions move tasks at once: neither waits for the other's counter rows.
    const first = new pg.Client({ connectionString: t.appUrl });
    const second = new pg.Client({ connectionString: t.appUrl });
    await Promise.all([first.connect(), second.connect()]);
    try {
      await first.query("begin");
      await second.query("begin");
      await first.query(
        "update tasks set status = 'cancelled' where id in (select id from tasks where status = 'queued' order by id limit 2)",
      );
      await second.query("set local lock_timeout = '2s'");
      await second.query(
        "update tasks set status = 'succeeded' where id in (select id from tasks where status = 'queued' order by id desc limit 1)",
      );
      // A dead task's reason changes: it moves between reasons, not statuses.
      await second.query(
        "update tasks set dead_reason = 'exhausted' where status = 'dead' and dead_reason = 'timeout'",
      );
      await second.query("commit");
      await first.query("rollback");
    } finally {
      await Promise.all([first.end(), second.end()]);
    }
    // Updates that change no status (a lease renewal, say) count nothing.
    await t.pool.query("update tasks set attempts = attempts + 1 where status = 'succeeded'");
    await t.pool.query("delete from effects where key = $1", [hex("c")]);
    await t.pool.query(
      `delete from tasks where id in (
         select id from tasks t where status = 'queued'
            and not exists (select 1 from effects e where e.task_id = t.id) order by id limit 1)`,
    );
    expect(await counted()).toEqual(await actual());
    expect(await counted()).toEqual({ succeeded: 91, queued: 4, dead: 4 });
    const tasks = await countTasks(t.pool);
    expect(tasks.deadByReason).toMatchObject({ budget: 3, timeout: 0, exhausted: 1 });
    expect(tasks.total).toEqual({ count: 99, approximate: false });
    const effects = await countEffects(t.pool);
    expect(effects.byStatus.succeeded).toEqual({ count: 1, approximate: false });
    expect(effects.byStatus.started).toEqual({ count: 1, approximate: false });
  });

  it("folds the counter rows of a backend that is gone into the next one that counts afresh", async () => {
    const pid = await writeFromGoneBackend(t.pool, t.appUrl, (c) =>
      c.query(
        "insert into tasks (agent, input, status, created_by) values ('fold', '{}', 'queued', 't')",
      ),
    );
    // A status change to a key this backend never wrote: its first write folds.
    const freshPid = await writeFromNewBackend(t.appUrl, (c) =>
      c.query("update tasks set status = 'rejected' where agent = 'fold'"),
    );
    const { rows } = await t.pool.query(
      "select 1 from status_counts where backend = $1 and backend <> $2",
      [pid, freshPid],
    );
    expect(rows).toEqual([]);
    const tasks = await countTasks(t.pool);
    const { rows: actual } = await t.pool.query<{ status: string; n: number }>(
      "select status, count(*)::int as n from tasks where status in ('queued', 'rejected') group by 1 order by 1",
    );
    expect(actual.map((r) => r.n)).toEqual([
      tasks.byStatus.queued.count,
      tasks.byStatus.rejected.count,
    ]);
  });

  it("counts entries exactly and estimates the streams of a large ledger", async () => {
    await t.pool.query(
      "insert into ledger_streams (stream, head_seq, head_hash) values ('c', 0, $1)",
      [hex("0")],
    );
    for (const seq of [1, 2, 3]) {
      await t.pool.query(
        `insert into ledger_entries (stream, seq, at, kind, actor, data, hash, month)
         values ('c', $1, now(), 'note.added', 't', '{}', $2, '1970-01-01')`,
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
      // Entries are counted by the kind counters however large the table; streams estimated.
      expect(large.entries).toEqual({ count: 3, approximate: false });
      expect(large.streams).toEqual({ count: EXACT_COUNT_BELOW * 5, approximate: true });
    });
  });
});
