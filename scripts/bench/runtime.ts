// Runtime throughput: tasks/s of the full runtime (attempt, a journaled step, an intent-keyed
// effect, the result, every ledger entry) against a bare queue on the same database (claim with
// SKIP LOCKED, mark done: no journal, no effects, no ledger), both at the same concurrency.
import type pg from "pg";
import { z } from "zod";
import { withTransaction } from "../../db/client";
import { operator } from "../../lib/domain/access";
import { defineAgent, defineTool } from "../../lib/sdk/define";
import { enqueueTask } from "../../lib/server/commands/enqueue-task";
import { startWorker } from "../../worker/runtime/worker";

const noopTool = defineTool({
  name: "notify",
  input: z.object({ n: z.number() }),
  intent: (a) => ({ n: a.n }),
  execute: async (a) => ({ delivered: a.n }),
});

const benchAgent = defineAgent({
  name: "bench",
  input: z.object({ n: z.number() }),
  tools: { notify: noopTool },
  run: async (ctx, input) => {
    const doubled = await ctx.step("compute", async () => input.n * 2);
    return ctx.tool("notify", { n: doubled });
  },
});

async function waitUntilDone(pool: pg.Pool, agent: string, total: number): Promise<void> {
  for (;;) {
    const { rows } = await pool.query<{ n: number }>(
      "select count(*)::int as n from tasks where agent = $1 and status = 'succeeded'",
      [agent],
    );
    if ((rows[0]?.n ?? 0) >= total) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function benchBareQueue(
  pool: pg.Pool,
  tasks: number,
  concurrency: number,
): Promise<number> {
  await pool.query(
    `insert into tasks (agent, input, created_by) select 'bare', jsonb_build_object('n', g), 'bench' from generate_series(1, $1) g`,
    [tasks],
  );
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const claimed = await pool.query<{ id: string }>(
          `update tasks set status = 'running', attempts = attempts + 1, lease_owner = 'bare',
             lease_expires_at = now() + interval '30 seconds'
           where id = (select id from tasks where status = 'queued' and agent = 'bare' and run_at <= now()
                       order by priority desc, run_at, id limit 1 for update skip locked)
           returning id`,
        );
        const id = claimed.rows[0]?.id;
        if (!id) return;
        await pool.query(
          `update tasks set status = 'succeeded', result = '{}', lease_owner = null, lease_expires_at = null
           where id = $1 and lease_owner = 'bare'`,
          [id],
        );
      }
    }),
  );
  return tasks / ((performance.now() - start) / 1000);
}

export async function benchRuntime(
  pool: pg.Pool,
  tasks: number,
  concurrency: number,
): Promise<number> {
  for (let i = 0; i < tasks; i += 200) {
    await withTransaction(pool, async (c) => {
      for (let n = i; n < Math.min(tasks, i + 200); n++) {
        const result = await enqueueTask(c, operator("bench"), {
          agent: "bench",
          input: { n },
          runAt: new Date(Date.now() + 3_600_000),
          unpublished: "enqueue",
        });
        if (!result.ok) throw new Error(result.message);
      }
    });
  }
  await pool.query("update tasks set run_at = now() where agent = 'bench'");
  const start = performance.now();
  const worker = await startWorker({
    pool,
    agents: [benchAgent],
    concurrency,
    pollMs: 50,
    log: () => {},
  });
  await waitUntilDone(pool, "bench", tasks);
  const seconds = (performance.now() - start) / 1000;
  await worker.stop(1_000);
  return tasks / seconds;
}
