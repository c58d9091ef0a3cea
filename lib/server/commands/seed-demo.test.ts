// The demo seed goes through enqueueTask like every other caller: on a fresh database (npm
// start seeds before its worker publishes) every demo task is enqueued; seeded where a worker
// already published the refund agent, the deliberately bad refund is refused and counted.
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../../db/testing/database";
import { refundInput } from "../../../worker/agents/refund";
import { seedDemo } from "./seed-demo";

const seededEntry = async (pool: pg.Pool) =>
  (
    await pool.query<{ data: unknown }>(
      "select data from ledger_entries where kind = 'demo.seeded'",
    )
  ).rows.map((r) => r.data);

const tasksOf = async (pool: pg.Pool) =>
  (await pool.query<{ n: number }>("select count(*)::int as n from tasks")).rows[0]?.n;

const fresh = await setUpTestDatabase("seed-fresh");
const published = await setUpTestDatabase("seed-published");

describe("seedDemo", () => {
  it("enqueues every demo task for agents no worker has published yet, once", async () => {
    const t = fresh;
    expect(await seedDemo(t.pool)).toEqual({ seeded: true });
    expect(await seedDemo(t.pool)).toEqual({ seeded: false });
    expect(await seededEntry(t.pool)).toEqual([{ tasks: 13 }]);
    expect(await tasksOf(t.pool)).toBe(13);
  });

  it("leaves out the refund the published schema refuses, and says so", async () => {
    const t = published;
    await t.pool.query(
      `insert into agent_catalog (name, input_schema, tools, published_by)
       values ('refund', $1, '[]', 'test')`,
      [JSON.stringify(z.toJSONSchema(refundInput, { io: "input" }))],
    );
    expect(await seedDemo(t.pool)).toEqual({ seeded: true });
    expect(await seededEntry(t.pool)).toEqual([{ tasks: 12, refused: 1 }]);
    const { rows } = await t.pool.query("select 1 from tasks where input->>'orderId' = 'ord_2005'");
    expect(rows).toEqual([]);
  });
});
