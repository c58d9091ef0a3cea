// "Running under our lease" (task-sql.ts leasedTo) is looked up by each task's key, however many
// tasks the fleet runs and whatever the planner's statistics last saw. Said as
// `status = 'running'`, it matched the partial indexes on running tasks, and with statistics taken
// before a burst (few running) the planner walked every running task to find a statement's few.
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../db/testing/database";
import { leasedTo } from "./task-sql";

const t = await setUpTestDatabase("lease_plan");

/**
 * The rows each scan of `tasks` handed up or filtered out, summed, in the plan a worker's named
 * statement settles on after its first runs: the generic one, planned without the values.
 */
async function tasksRowsRead(text: string, ids: string[], worker: string): Promise<number> {
  const client = await t.pool.connect();
  try {
    await client.query("begin");
    await client.query("set local plan_cache_mode = force_generic_plan");
    await client.query(`prepare lease_shape(uuid[], text) as ${text}`);
    const { rows } = await client.query<{ "QUERY PLAN": unknown }>(
      `explain (analyze, format json) execute lease_shape('{${ids.join(",")}}', '${worker}')`,
    );
    await client.query("rollback");
    await client.query("deallocate lease_shape");
    let read = 0;
    const walk = (node: Record<string, unknown>) => {
      if (node["Relation Name"] === "tasks") {
        const loops = Number(node["Actual Loops"] ?? 1);
        read += (Number(node["Actual Rows"]) + Number(node["Rows Removed by Filter"] ?? 0)) * loops;
      }
      for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
    };
    const plans = (rows[0]?.["QUERY PLAN"] ?? []) as { Plan: Record<string, unknown> }[];
    walk(plans[0]?.Plan ?? {});
    return read;
  } finally {
    client.release();
  }
}

describe("a statement's lease check", () => {
  it("reads its own tasks by key, not every running task, with statistics from before a burst", async () => {
    await t.pool.query(
      "insert into tasks (agent, input, created_by) select 'a', '{}', 'x' from generate_series(1, 200)",
    );
    await t.ownerPool.query("analyze tasks");
    // This database's own: no autovacuum's analyze may catch up with the burst mid-test.
    await t.ownerPool.query("alter table tasks set (autovacuum_enabled = false)");
    // Then a burst the statistics have not seen: 20,000 more, 300 of them running elsewhere.
    await t.pool.query(
      "insert into tasks (agent, input, created_by) select 'a', '{}', 'x' from generate_series(1, 20000)",
    );
    await t.pool.query(
      `update tasks set status = 'running', lease_owner = 'w-other', lease_expires_at = now() + interval '1 minute'
       where id in (select id from tasks order by id limit 300)`,
    );
    const { rows } = await t.pool.query<{ id: string }>(
      `update tasks set status = 'running', lease_owner = 'w-mine', lease_expires_at = now() + interval '1 minute'
       where id in (select id from tasks where status = 'queued' order by id limit 16) returning id`,
    );
    const ids = rows.map((r) => r.id);
    // `held(alias)`: the lease check, its columns under the alias when there is one.
    const shapes = (held: (alias?: string) => string) => [
      // The heartbeat's renewal and the lease CTE of a journaled step.
      `select id from tasks where id = any($1::uuid[]) and ${held()}`,
      `select id from tasks where id in (select unnest($1::uuid[])) and ${held()} for share`,
      // The completion's update, joined to its input.
      `update tasks t set updated_at = now() from unnest($1::uuid[]) as i(id)
       where t.id = i.id and ${held("t")}`,
    ];
    for (const text of shapes((alias) => leasedTo("$2", alias))) {
      expect(await tasksRowsRead(text, ids, "w-mine")).toBeLessThanOrEqual(2 * ids.length);
    }
    // Said as status = 'running', the same statements walk all 316 running tasks (PostgreSQL 15
    // and 18 alike, at 20,000 tasks as at 100,000).
    const walked: number[] = [];
    const byStatus = (alias?: string) => {
      const t = alias ? `${alias}.` : "";
      return `${t}lease_owner = $2 and ${t}status = 'running'`;
    };
    for (const text of shapes(byStatus)) {
      walked.push(await tasksRowsRead(text, ids, "w-mine"));
    }
    expect(Math.min(...walked)).toBeGreaterThanOrEqual(300);
  });
});
